/**
 * The OpenAPI 3.1 document, generated from the same zod contracts the
 * handlers validate with (lib/api/route-table.ts), so it always lists every
 * route the service has.
 */
import * as z from 'zod';
import type { RouteContract } from './route';
import { IDEMPOTENCY_HEADER } from './idempotency';

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing, invalid or expired token',
  402: 'Insufficient credits',
  403: 'Forbidden',
  404: 'Not found (or another team’s id)',
  409: 'Conflict',
  413: 'Payload too large',
  422: 'Validation failed',
  429: 'Rate limited',
  502: 'Remote system rejected the call or is unreachable',
  503: 'Not configured or temporarily unavailable',
};

function schemaOf(type: z.ZodType, io: 'input' | 'output') {
  const json = z.toJSONSchema(type, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

function parametersOf(route: RouteContract) {
  const params: Record<string, unknown>[] = [];
  for (const [where, shape] of [['path', route.params], ['query', route.query]] as const) {
    if (!shape) continue;
    const json = schemaOf(shape, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, schema] of Object.entries(json.properties ?? {})) {
      params.push({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema });
    }
  }
  if (route.idempotent) {
    params.push({
      name: IDEMPOTENCY_HEADER, in: 'header', required: false,
      description: 'A retry with the same key (per team and route) gets the first answer; the same key with another request answers 422, one still running 409. Remembered for 24 hours.',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  return params;
}

export function openApiDocument(routes: RouteContract[], info: { title: string; version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  const errorBody = { type: 'object', properties: { detail: {} }, required: ['detail'] };
  for (const route of routes) {
    const responses: Record<string, unknown> = {
      [String(route.successStatus ?? 200)]: {
        description: 'Success',
        ...(route.response ? { content: { 'application/json': { schema: schemaOf(route.response, 'output') } } } : {}),
      },
    };
    const statuses = new Set(route.errors ?? []);
    if (route.auth !== 'none' && route.auth !== 'capability') statuses.add(401);
    if (route.auth === 'admin') statuses.add(403);
    if (route.params || route.query || route.body) statuses.add(422);
    for (const status of [...statuses].sort()) {
      responses[String(status)] = { description: ERROR_TEXT[status] ?? 'Error', content: { 'application/json': { schema: errorBody } } };
    }
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = {
      operationId: route.name,
      summary: route.summary,
      tags: [route.tag],
      ...(route.auth === 'none' || route.auth === 'capability' ? { security: [] } : {}),
      ...(route.auth === 'admin' ? { 'x-admin-only': true } : {}),
      parameters: parametersOf(route),
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(route.body, 'input') } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        cookie: { type: 'apiKey', in: 'cookie', name: 'bt_shared_data' },
      },
    },
    security: [{ bearer: [] }, { cookie: [] }],
    paths,
  };
}
