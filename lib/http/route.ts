/**
 * A route contract: method, path, who may call it and the zod schemas of what
 * it takes and returns. Contracts live beside their domain (lib/<domain>/routes.ts)
 * and are read by three things: the handler (validation), the OpenAPI document
 * (lib/http/openapi.ts) and the serverless function list (deploy/manifest.js).
 */
import * as z from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * none: no token. user: signed-in user, team-scoped. actor: same identity, the
 * route writes activity. admin: ADMIN_EXTERNAL_USER_IDS allowlist.
 * capability: the uuid in the path is the credential (no header).
 */
export type RouteAuth = 'none' | 'user' | 'actor' | 'admin' | 'capability';

export interface RouteContract {
  /** Serverless function name; unique. */
  name: string;
  method: HttpMethod;
  /** API Gateway path with {param} placeholders. */
  path: string;
  auth: RouteAuth;
  summary: string;
  tag: string;
  /** Handler module under functions/, without extension, e.g. 'api/claims/get-claim'. */
  handler: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Documented success response (not validated at run time). */
  response?: z.ZodType;
  /**
   * Media types of a success body that is not JSON (the API reference page and its assets); the OpenAPI
   * document lists them instead of application/json.
   */
  produces?: readonly string[];
  /**
   * Named examples of a request body and a success answer, for what a schema alone does not show a client
   * (the OpenAPI document lists them beside the schema; tests/unit/api/route-examples.test.ts parses each
   * with its schema: `body` as the handler validates it, `response` as the answer is documented).
   */
  examples?: { body?: Record<string, RouteExample>; response?: Record<string, RouteExample> };
  /** Status of a successful answer; 200 unless stated. */
  successStatus?: number;
  /**
   * Documented error statuses besides 401/422 which every authenticated route has; a 304 here (a cached file
   * still current) is documented without a body.
   */
  errors?: number[];
  /**
   * Honours the Idempotency-Key header (lib/http/idempotency.ts): a retry with the same key
   * gets the first answer. For create routes, whose repeats would create or charge twice.
   */
  idempotent?: true;
  /** Per-function overrides for serverless.yml (timeout, memory). */
  lambda?: { timeout?: number; memorySize?: number };
  /** Layers whose modules the handler loads at run time (deploy/layers.js; e.g. 'sharp' for a thumbnail route). */
  layers?: readonly string[];
}

/** One example of a route's request body or answer: what it shows, and the value. */
export interface RouteExample {
  summary: string;
  value: unknown;
}

/** A request body example, typed by the schema the handler validates it with (z.input). */
export const bodyExample = <T extends z.ZodType>(_schema: T, summary: string, value: z.input<T>): RouteExample => ({
  summary,
  value,
});

/** An answer example, typed by the route's documented response schema (z.output). */
export const responseExample = <T extends z.ZodType>(
  _schema: T,
  summary: string,
  value: z.output<T>,
): RouteExample => ({ summary, value });

/**
 * Declares a route contract, keeping its literal types (method, auth, the
 * zod schemas) so the handler built from it is typed by it. Contracts are
 * grouped per domain in lib/<domain>/routes.ts, and the group is listed in
 * the route table (lib/api/route-table.ts), which adds the OpenAPI operation
 * and the serverless function.
 *
 * @example
 * ```ts
 * import { defineRoute } from '../http/route';
 * import { idParams } from '../http/schemas';
 * import { claimPatchBody, claimResponse } from './schemas';
 *
 * export const claimRoutes = {
 *   patch: defineRoute({
 *     name: 'patchClaim', // the serverless function's name
 *     method: 'PATCH',
 *     path: '/api/claims/{id}',
 *     auth: 'actor', // signed in, and the route writes activity
 *     tag: 'claims',
 *     summary: 'Inline edit of claim fields (restorable).',
 *     handler: 'api/claims/patch-claim', // functions/api/claims/patch-claim.ts
 *     params: idParams,
 *     body: claimPatchBody,
 *     response: claimResponse,
 *     errors: [404],
 *   }),
 * };
 * ```
 */
export function defineRoute<const C extends RouteContract>(contract: C): C {
  return contract;
}

export type Infer<T> = T extends z.ZodType ? z.output<T> : undefined;

/**
 * Path parameters that are credentials (a homeowner link's token): marked on
 * their schema in the route contract, so wherever a path is written (the
 * request log, error reports) the value is masked. Kept in a registry of its
 * own, so the mark never reaches the OpenAPI document.
 */
const credentials = z.registry<Record<string, never>>();

/** Marks a path parameter's schema as a credential. */
export function credentialParam<T extends z.ZodType>(schema: T): T {
  credentials.add(schema, {});
  return schema;
}

/** What a credential in a path is written as. */
export const MASKED_CREDENTIAL = '[credential]';

/**
 * The path of a call as it may be written down: the route's template with
 * its ids filled in and every credential parameter masked.
 */
export function loggablePath(
  route: Pick<RouteContract, 'path' | 'params'>,
  values: Record<string, string | undefined> = {},
): string {
  const shape = (route.params?.shape ?? {}) as Record<string, z.ZodType>;
  return route.path.replace(/\{([^}+]+)\+?\}/g, (whole, name: string) => {
    if (shape[name] && credentials.has(shape[name])) return MASKED_CREDENTIAL;
    const value = values[name];
    return value === undefined ? whole : encodeURIComponent(value);
  });
}
