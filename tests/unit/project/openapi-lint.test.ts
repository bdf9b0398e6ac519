/**
 * The OpenAPI document the SPA's engineers read lints clean with Spectral's
 * recommended rules (.spectral.yaml): no errors and no warnings. The document
 * is generated as GET /api/openapi.json serves it, written to a temp file
 * under .local and linted by the spectral CLI.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { routeTable } from '../../../lib/api/route-table';
import { serviceApi } from '../../../lib/http/docs-routes';
import { openApiDocument } from '../../../lib/http/openapi';

const ROOT = join(__dirname, '..', '..', '..');
const SPECTRAL = join(ROOT, 'node_modules', '@stoplight', 'spectral-cli', 'dist', 'index.js');

interface Finding {
  code: string;
  message: string;
  path: string[];
  severity: number;
}

const SEVERITY = ['error', 'warning', 'info', 'hint'];

let dir: string;
beforeAll(() => {
  mkdirSync(join(ROOT, '.local'), { recursive: true });
  dir = mkdtempSync(join(ROOT, '.local', 'openapi-lint-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Spectral's findings for a document; it exits 1 when there are some, with the JSON on stdout either way. */
async function lint(document: unknown): Promise<Finding[]> {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(document, null, 2));
  const args = [
    SPECTRAL,
    'lint',
    file,
    '--ruleset',
    join(ROOT, '.spectral.yaml'),
    '--format',
    'json',
    '--fail-severity',
    'warn',
    '--quiet',
  ];
  const { stdout } = await promisify(execFile)(process.execPath, args, {
    cwd: ROOT,
    maxBuffer: 32 * 1024 * 1024,
  }).catch((err: { stdout?: string; stderr?: string; code?: number }) => {
    // Exit 1 with JSON is "findings"; anything else (a crash, a bad ruleset) is the test's failure.
    if (err.code !== 1 || !err.stdout?.trim().startsWith('['))
      throw new Error(`spectral failed (exit ${err.code}): ${err.stderr ?? ''}${err.stdout ?? ''}`);
    return { stdout: err.stdout };
  });
  return JSON.parse(stdout) as Finding[];
}

const show = (f: Finding) => `${SEVERITY[f.severity] ?? f.severity} ${f.code} at ${f.path.join('.')}: ${f.message}`;

describe('the OpenAPI document under Spectral (spectral:oas)', () => {
  it('has no errors and no warnings', async () => {
    const findings = await lint(openApiDocument(routeTable, serviceApi));
    expect(findings.map(show)).toEqual([]);
  });

  it('reports what the recommended rules catch (the linter does run on the document)', async () => {
    // A route with an undeclared tag and an operation without a description must be reported,
    // so an empty list above means a clean document, not a linter that read nothing.
    const doc = openApiDocument(routeTable, { ...serviceApi, tags: { ...serviceApi.tags, health: '' } }) as {
      paths: Record<string, Record<string, { description?: string }>>;
    };
    delete doc.paths['/api/openapi.json'].get.description;
    const codes = new Set((await lint(doc)).map((f) => f.code));
    expect(codes).toEqual(new Set(['operation-tag-defined', 'operation-description']));
  });
});
