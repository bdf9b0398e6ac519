/** Covers: lib/api/route-table.ts, lib/http/openapi.ts, deploy/manifest.js (the function list built from it). */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { backgroundFunctions } from '../../../lib/background/functions';
import { loadSettings, resetSettings } from '../../../lib/config';
import { serviceApi } from '../../../lib/http/docs-routes';
import { openApiDocument } from '../../../lib/http/openapi';
import type { RouteContract } from '../../../lib/http/route';
import { routeTable } from '../../../lib/api/route-table';

const ROOT = join(__dirname, '..', '..', '..');
const handlerFile = (handler: string) => join(ROOT, 'functions', `${handler}.ts`);
const placeholders = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
const label = (r: RouteContract) => `${r.method} ${r.path} (${r.name})`;

beforeAll(() => {
  // Handler modules read settings when they are built (CORS origins).
  resetSettings(loadSettings({ env: {}, overrides: {}, dotenvPath: '/nonexistent', machineFilePath: '/nonexistent' }));
});
afterAll(() => resetSettings());

describe('routeTable', () => {
  it('is not empty and includes the auth routes', () => {
    expect(routeTable.length).toBeGreaterThan(5);
    const byName = new Map(routeTable.map((r) => [r.name, r]));
    expect(byName.get('getMe')).toMatchObject({ method: 'GET', path: '/api/auth/me' });
    expect(byName.get('estimationHandoff')).toMatchObject({
      method: 'GET',
      path: '/api/sso/estimation-platform/authorize',
    });
  });

  it('has unique function names', () => {
    const names = routeTable.map((r) => r.name);
    const dupes = names.filter((n, i) => names.indexOf(n) !== i);
    expect(dupes).toEqual([]);
  });

  it('has unique method + path pairs', () => {
    const keys = routeTable.map((r) => `${r.method} ${r.path}`);
    const dupes = keys.filter((k, i) => keys.indexOf(k) !== i);
    expect(dupes).toEqual([]);
  });

  it('has path placeholders that match the params schema keys', () => {
    const mismatches = routeTable
      .map((r) => ({
        route: label(r),
        inPath: placeholders(r.path),
        inSchema: Object.keys(r.params?.shape ?? {}).sort(),
      }))
      .filter((m) => JSON.stringify(m.inPath) !== JSON.stringify(m.inSchema));
    expect(mismatches).toEqual([]);
  });

  it('points every route at an existing functions/<handler>.ts', () => {
    const missing = routeTable.filter((r) => !existsSync(handlerFile(r.handler))).map(label);
    expect(missing).toEqual([]);
  });

  it.each(routeTable.map((r) => [label(r), r] as const))(
    '%s: the handler module exports handler.route === the contract',
    (_label, route) => {
      const mod = require(handlerFile(route.handler)) as { handler?: { route?: RouteContract } };
      expect(typeof mod.handler).toBe('function');
      expect(mod.handler!.route).toBe(route);
    },
  );
});

interface DocResponse {
  description?: string;
  content?: Record<string, { schema?: { $ref?: string } }>;
}
interface DocOperation {
  operationId?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  requestBody?: unknown;
  responses: Record<string, DocResponse>;
}

describe('openApiDocument', () => {
  const doc = openApiDocument(routeTable, serviceApi);
  const paths = doc.paths as Record<string, Record<string, DocOperation>>;
  const operationOf = (r: RouteContract) => paths[r.path][r.method.toLowerCase()];
  const documents = (r: RouteContract, status: number) => String(status) in operationOf(r).responses;
  const signedIn = (r: RouteContract) => r.auth !== 'none' && r.auth !== 'capability';
  const writes = (r: RouteContract) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method);

  it('is an OpenAPI 3.1.0 document with the service description', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual({
      title: serviceApi.title,
      version: serviceApi.version,
      description: serviceApi.description,
      contact: serviceApi.contact,
    });
    expect(doc.info.description.length).toBeGreaterThan(0);
  });

  it('gives every operation a description and a tag declared at the top level with a description', () => {
    const declared = new Map(doc.tags.map((t) => [t.name, t.description]));
    const wrong = routeTable
      .filter((r) => {
        const op = operationOf(r);
        return (
          !op.description?.trim() ||
          op.tags?.length !== 1 ||
          !declared.get(op.tags[0])?.trim() ||
          !serviceApi.tags[r.tag]
        );
      })
      .map(label);
    expect(wrong).toEqual([]);
  });

  it('answers 403 on every write that accepts the login cookie (the cross-site check), and says why', () => {
    const cookieWrites = routeTable.filter((r) => signedIn(r) && writes(r));
    expect(cookieWrites.length).toBeGreaterThan(10);
    const missing = cookieWrites
      .filter((r) => !/Cross-site request refused/.test(operationOf(r).responses['403']?.description ?? ''))
      .map(label);
    expect(missing).toEqual([]);
    // Reads, and writes without a cookie credential (capability, none), are not checked, so not documented as such.
    const extra = routeTable
      .filter(
        (r) => !(signedIn(r) && writes(r)) && /Cross-site/.test(operationOf(r).responses['403']?.description ?? ''),
      )
      .map(label);
    expect(extra).toEqual([]);
  });

  it('answers 415 on exactly the operations with a JSON request body', () => {
    const withBody = routeTable
      .filter((r) => r.body)
      .map(label)
      .sort();
    expect(withBody.length).toBeGreaterThan(5);
    expect(
      routeTable
        .filter((r) => operationOf(r).requestBody)
        .map(label)
        .sort(),
    ).toEqual(withBody);
    expect(
      routeTable
        .filter((r) => documents(r, 415))
        .map(label)
        .sort(),
    ).toEqual(withBody);
  });

  it('answers 409 and 422 for reused Idempotency-Keys on the idempotent operations', () => {
    const wrong = routeTable
      .filter((r) => r.idempotent)
      .filter((r) => {
        const { responses } = operationOf(r);
        return (
          !/Idempotency-Key/.test(responses['409']?.description ?? '') ||
          !/Idempotency-Key/.test(responses['422']?.description ?? '')
        );
      })
      .map(label);
    expect(wrong).toEqual([]);
  });

  it('answers 422 for a forged cursor on the paginated operations', () => {
    const paginated = routeTable.filter((r) => r.query && 'cursor' in r.query.shape);
    expect(paginated.map((r) => r.name)).toContain('listActivity');
    expect(
      paginated.filter((r) => !/query\.cursor/.test(operationOf(r).responses['422']?.description ?? '')).map(label),
    ).toEqual([]);
  });

  it('answers 429 on the job event stream (the per-job cap on open streams)', () => {
    const stream = routeTable.find((r) => r.path === '/api/jobs/{id}/stream' && r.method === 'GET')!;
    expect(operationOf(stream).responses['429']).toMatchObject({
      description: expect.stringMatching(/Too many requests/),
      headers: { 'Retry-After': expect.any(Object) },
    });
  });

  it('gives every error answer a description and the {"detail"} error schema (402: the spec\'s credits body)', () => {
    const errorSchema = (
      doc.components.schemas as Record<string, { required?: string[]; properties?: Record<string, unknown> }>
    ).Error;
    expect(errorSchema.required).toEqual(['detail']);
    expect(Object.keys(errorSchema.properties ?? {})).toContain('detail');
    const wrong = routeTable.flatMap((r) =>
      Object.entries(operationOf(r).responses)
        .filter(([status]) => Number(status) >= 400)
        .filter(
          ([status, res]) =>
            !res.description?.trim() ||
            res.content?.['application/json']?.schema?.$ref !==
              `#/components/schemas/${status === '402' ? 'InsufficientCredits' : 'Error'}`,
        )
        .map(([status]) => `${label(r)} ${status}`),
    );
    expect(wrong).toEqual([]);
  });

  it('lists every route under its path and method with its operationId', () => {
    const missing = routeTable
      .filter((r) => paths[r.path]?.[r.method.toLowerCase()]?.operationId !== r.name)
      .map(label);
    expect(missing).toEqual([]);
  });

  it('has no operations beyond the route table', () => {
    const operations = Object.entries(paths).flatMap(([p, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(operations.sort()).toEqual(routeTable.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('marks the create routes idempotent and documents the Idempotency-Key header on exactly those', () => {
    const idempotent = routeTable
      .filter((r) => r.idempotent)
      .map((r) => r.name)
      .sort();
    expect(idempotent).toEqual([
      'addInventoryItem',
      'appendPhotos',
      'createClaim',
      'importContentsList',
      'importFromCaptureSource',
      'initUpload',
      'processJob',
      'submitToClaimsPlatform',
      'submitToEstimationPlatform',
      'uploadAudio',
      'uploadPhotos',
      'uploadVideo',
    ]);
    const documented = routeTable
      .filter((r) =>
        (paths[r.path][r.method.toLowerCase()].parameters ?? []).some(
          (p) => p.in === 'header' && p.name === 'Idempotency-Key',
        ),
      )
      .map((r) => r.name)
      .sort();
    expect(documented).toEqual(idempotent);
  });

  it('documents every path placeholder as a path parameter', () => {
    const missing = routeTable.flatMap((r) => {
      const params = paths[r.path][r.method.toLowerCase()].parameters ?? [];
      return placeholders(r.path)
        .filter((name) => !params.some((p) => p.name === name && p.in === 'path'))
        .map((name) => `${label(r)}: ${name}`);
    });
    expect(missing).toEqual([]);
  });
});

describe('deploy/manifest.js', () => {
  const manifest = require('../../../deploy/manifest.js') as {
    functions: Record<string, { handler: string; events: Record<string, Record<string, unknown>>[]; url?: unknown }>;
    queueLogicalId: (purpose: string) => string;
    settings: Record<string, unknown>;
  };

  it('declares every route as a function with an httpApi event of the same method and path', () => {
    const wrong = routeTable
      .filter((r) => {
        const fn = manifest.functions[r.name];
        return (
          !fn ||
          fn.handler !== `functions/${r.handler}.handler` ||
          JSON.stringify(fn.events) !== JSON.stringify([{ httpApi: { method: r.method, path: r.path } }])
        );
      })
      .map(label);
    expect(wrong).toEqual([]);
  });

  it('declares every background function with its handler and trigger', () => {
    expect(backgroundFunctions.length).toBeGreaterThan(0);
    for (const fn of backgroundFunctions) {
      const declared = manifest.functions[fn.name];
      expect(declared).toBeDefined();
      expect(declared.handler).toBe(`functions/${fn.handler}.handler`);
      expect(existsSync(handlerFile(fn.handler))).toBe(true);
      if (fn.kind === 'queue') {
        expect(declared.events[0].sqs).toMatchObject({
          arn: { 'Fn::GetAtt': [manifest.queueLogicalId(fn.queue), 'Arn'] },
          batchSize: fn.batchSize,
          functionResponseType: 'ReportBatchItemFailures',
        });
      } else if (fn.kind === 'schedule') {
        const rate = /^(rate|cron)\(/.test(fn.rate) ? fn.rate : manifest.settings[fn.rate];
        expect(declared.events[0].schedule).toEqual({ rate: [rate] });
      } else {
        expect(declared.url).toEqual({ invokeMode: 'RESPONSE_STREAM', cors: true });
        expect(declared.events).toBeUndefined();
      }
    }
  });

  it('declares nothing that is neither a route nor a background function', () => {
    const known = new Set([...routeTable.map((r) => r.name), ...backgroundFunctions.map((f) => f.name)]);
    expect(Object.keys(manifest.functions).filter((name) => !known.has(name))).toEqual([]);
  });

  it('names queues the way serverless.yml declares them', () => {
    expect(manifest.queueLogicalId('purge')).toBe('PurgeQueue');
    expect(manifest.queueLogicalId('photo-analysis')).toBe('PhotoAnalysisQueue');
  });
});
