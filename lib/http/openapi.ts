/**
 * The OpenAPI 3.1 document, generated from the same zod contracts the
 * handlers validate with (lib/api/route-table.ts), so it always lists every
 * route the service has. The answers the middy stack adds on its own (401,
 * the cross-site 403, 415, 422, the idempotency 409/422) are derived here from
 * the contract, as lib/http/endpoint.ts decides them, not written per route.
 * The document must lint clean with Spectral's recommended OpenAPI rules
 * (tests/unit/project/openapi-lint.test.ts).
 */
import * as z from 'zod';
import { isStateChanging } from './csrf';
import { IDEMPOTENCY_HEADER } from './idempotency';
import type { RouteAuth, RouteContract, RouteExample } from './route';
import { insufficientCreditsBody } from './schemas';

/** What the document says about the service as a whole (lib/http/docs-routes.ts has the service's own). */
export interface ApiDescription {
  title: string;
  version: string;
  description: string;
  contact: { name: string; url?: string; email?: string };
  /** Every tag a route may use, with what it groups; a route whose tag is missing here fails the lint test. */
  tags: Record<string, string>;
}

const ERROR_TEXT: Record<number, string> = {
  304: 'Not modified: the `If-None-Match` ETag is still current; no body',
  400: 'Bad request: the request is valid but the resource is not in a state that allows it',
  401: 'Missing, invalid or expired token or login cookie',
  402: 'Insufficient credits',
  403: 'Forbidden',
  404: 'Not found (or another team’s id)',
  409: 'Conflict with the current state of the resource',
  413: 'Payload too large',
  415: 'Unsupported media type: the body must be JSON (`Content-Type: application/json` or a `+json` type)',
  422: 'Validation failed: `errors` lists each bad field (`body.*`, `query.*`, `path.*`) with its message',
  429: 'Too many requests: a rate or concurrency limit was reached; retry after `Retry-After` seconds',
  502: 'Remote system rejected the call or is unreachable',
  503: 'Not configured or temporarily unavailable',
};

const CROSS_SITE_TEXT =
  'Cross-site request refused: signed in by the login cookie, the write carried neither an `Origin` from the allowed origins nor an `X-Requested-With` header';
const ADMIN_TEXT = 'The caller is not an admin';
const CURSOR_TEXT = '`query.cursor` is not a cursor this list issued (pass `next_cursor` back unchanged)';
const IDEMPOTENCY_REUSED_TEXT = `The \`${IDEMPOTENCY_HEADER}\` was already used with a different request, or is not 1 to 255 visible ASCII characters`;
const IDEMPOTENCY_RUNNING_TEXT = `A request with the same \`${IDEMPOTENCY_HEADER}\` is still running; retry it shortly`;

const SUCCESS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  302: 'Found: the `Location` header is a short-lived URL of the content',
  307: 'Temporary redirect: follow the `Location` header',
};

const CALLER_TEXT: Record<RouteAuth, string> = {
  none: 'No sign-in needed.',
  capability: 'No sign-in: the id in the path is the credential.',
  user: 'Signed-in user (bearer token or login cookie); team-scoped.',
  actor:
    'Signed-in user (bearer token or login cookie); team-scoped; the change is recorded in the activity feed of the team that owns the resource.',
  admin: 'Admins only (bearer token or login cookie of a user on the admin allow-list).',
};

const ERROR_SCHEMA = 'Error';
const CREDITS_SCHEMA = 'InsufficientCredits';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const components = {
  schemas: {
    [ERROR_SCHEMA]: {
      type: 'object',
      description: 'Every error answer (except 402).',
      properties: {
        detail: { type: 'string', description: 'What went wrong, in words for people.' },
        errors: {
          type: 'array',
          description: 'On validation failures (422): each bad field and why.',
          items: {
            type: 'object',
            properties: {
              field: {
                type: 'string',
                description: 'Where the bad value was: `body`, `query`, `path` or `header`, then the field path.',
              },
              message: { type: 'string' },
            },
            required: ['field', 'message'],
          },
        },
      },
      required: ['detail'],
    },
    // The spec's 402 body, which replaces {detail}; lib/billing/charge-service.ts answers with the same schema.
    [CREDITS_SCHEMA]: schemaOf(insufficientCreditsBody, 'output'),
  },
  securitySchemes: {
    bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The claims platform’s login token.' },
    cookie: {
      type: 'apiKey',
      in: 'cookie',
      name: 'bt_shared_data',
      description:
        'The claims platform’s shared login cookie. Writes signed in by it need an allowed `Origin` or an `X-Requested-With` header.',
    },
  },
};

function schemaOf(type: z.ZodType, io: 'input' | 'output') {
  const json = z.toJSONSchema(type, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

const isSignedIn = (route: RouteContract) => route.auth !== 'none' && route.auth !== 'capability';
/** A write whose credential may be the login cookie, so the cross-site check runs (lib/http/endpoint.ts). */
const crossSiteChecked = (route: RouteContract) => isSignedIn(route) && isStateChanging(route.method);
const isPaginated = (route: RouteContract) => Boolean(route.query && 'cursor' in route.query.shape);

function parametersOf(route: RouteContract) {
  const params: Record<string, unknown>[] = [];
  for (const [where, shape] of [
    ['path', route.params],
    ['query', route.query],
  ] as const) {
    if (!shape) continue;
    const json = schemaOf(shape, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, schema] of Object.entries(json.properties ?? {})) {
      params.push({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema });
    }
  }
  if (route.idempotent) {
    params.push({
      name: IDEMPOTENCY_HEADER,
      in: 'header',
      required: false,
      description:
        'A retry with the same key (per team and route) gets the first answer; the same key with another request answers 422, one still running 409. Remembered for 24 hours.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  return params;
}

/** Every error status the route can answer, each with the reasons it is given, in the order the stack checks them. */
function errorReasons(route: RouteContract): Map<number, string[]> {
  const reasons = new Map<number, string[]>();
  const add = (status: number, why: string) => {
    const list = reasons.get(status) ?? [];
    if (!list.includes(why)) list.push(why);
    reasons.set(status, list);
  };
  if (isSignedIn(route)) add(401, ERROR_TEXT[401]);
  if (route.auth === 'admin') add(403, ADMIN_TEXT);
  if (crossSiteChecked(route)) add(403, CROSS_SITE_TEXT);
  if (route.body) add(415, ERROR_TEXT[415]);
  if (route.params || route.query || route.body) add(422, ERROR_TEXT[422]);
  if (isPaginated(route)) add(422, CURSOR_TEXT);
  if (route.idempotent) {
    add(422, IDEMPOTENCY_REUSED_TEXT);
    add(409, IDEMPOTENCY_RUNNING_TEXT);
  }
  for (const status of route.errors ?? []) add(status, ERROR_TEXT[status] ?? 'Error');
  return reasons;
}

function errorResponse(status: number, why: string[]) {
  const description = why.length === 1 ? why[0] : `One of:\n${why.map((w) => `- ${w}`).join('\n')}`;
  // A 304 (a cached file still current) has no body.
  if (status < 400) return { description };
  return {
    description,
    ...(status === 429
      ? {
          headers: {
            'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
          },
        }
      : {}),
    content: { 'application/json': { schema: ref(status === 402 ? CREDITS_SCHEMA : ERROR_SCHEMA) } },
  };
}

/** A media type object's `examples` (OpenAPI's named Example objects) from a contract's named examples. */
const examplesOf = (examples: Record<string, RouteExample> | undefined) =>
  examples && Object.keys(examples).length
    ? {
        examples: Object.fromEntries(
          Object.entries(examples).map(([name, { summary, value }]) => [name, { summary, value }]),
        ),
      }
    : {};

/** The success body: JSON with the response schema, or the media types of a body that is not JSON (a page). */
function successContent(route: RouteContract) {
  if (route.produces) return Object.fromEntries(route.produces.map((type) => [type, { schema: { type: 'string' } }]));
  if (!route.response) return undefined;
  return {
    'application/json': { schema: schemaOf(route.response, 'output'), ...examplesOf(route.examples?.response) },
  };
}

function successResponse(route: RouteContract) {
  const status = route.successStatus ?? 200;
  const redirect = status >= 300 && status < 400;
  const content = successContent(route);
  return {
    description: SUCCESS_TEXT[status] ?? 'Success',
    ...(redirect
      ? { headers: { Location: { description: 'Where to go next.', required: true, schema: { type: 'string' } } } }
      : {}),
    ...(content ? { content } : {}),
  };
}

/** The operation's text: its summary, then who may call it and the rules the stack applies, all read from the contract. */
function descriptionOf(route: RouteContract): string {
  const notes = [CALLER_TEXT[route.auth]];
  if (crossSiteChecked(route))
    notes.push(
      'When signed in by the login cookie, send an `Origin` from the allowed origins or an `X-Requested-With` header, else 403.',
    );
  if (route.body) notes.push('The body is JSON (`Content-Type: application/json`), else 415.');
  if (route.idempotent)
    notes.push(
      `Send an \`${IDEMPOTENCY_HEADER}\` to retry safely: a retry within 24 hours gets the first answer and creates or charges nothing again.`,
    );
  if (isPaginated(route))
    notes.push('Paginated: pass `next_cursor` back unchanged as `cursor` for the next page; any other cursor is 422.');
  return `${route.summary}\n\n${notes.join(' ')}`;
}

export function openApiDocument(routes: RouteContract[], api: ApiDescription) {
  const paths: Record<string, Record<string, unknown>> = {};
  const usedTags: string[] = [];
  for (const route of routes) {
    const responses: Record<string, unknown> = { [String(route.successStatus ?? 200)]: successResponse(route) };
    const reasons = errorReasons(route);
    for (const status of [...reasons.keys()].sort((a, b) => a - b))
      responses[String(status)] = errorResponse(status, reasons.get(status)!);
    if (!usedTags.includes(route.tag)) usedTags.push(route.tag);
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = {
      operationId: route.name,
      summary: route.summary,
      description: descriptionOf(route),
      tags: [route.tag],
      ...(isSignedIn(route) ? {} : { security: [] }),
      ...(route.auth === 'admin' ? { 'x-admin-only': true } : {}),
      parameters: parametersOf(route),
      ...(route.body
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': { schema: schemaOf(route.body, 'input'), ...examplesOf(route.examples?.body) },
              },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: api.title, version: api.version, description: api.description, contact: api.contact },
    // Relative: the document is served by the API it describes (GET /api/openapi.json), on whatever host that is.
    servers: [{ url: '/', description: 'The host that serves this document' }],
    // The declared tags that routes use; a route's undeclared tag is left out, which the lint test reports (operation-tag-defined).
    tags: usedTags.filter((name) => api.tags[name]).map((name) => ({ name, description: api.tags[name] })),
    components,
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
  };
}
