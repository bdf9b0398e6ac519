/**
 * The middy stack every HTTP handler is built with:
 *   outbound signals sent last → request log line → common headers (nosniff) → CORS (CORS_ORIGINS) →
 *   errors as {"detail": ...} →
 *   caller for the route's level (a resolver injected from above the domains,
 *   lib/api/endpoint.ts) → cross-site check on cookie-signed writes (403) →
 *   JSON content type (415) → path/query/body validation (422) → handler.
 * Handlers stay thin: they get validated input and the caller's identity, call
 * one domain function and return a value (200 JSON) or an HttpResponse.
 */
import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { loadSecrets, settings } from '../config';
import { flushSignals } from '../observability/flush';
import { logger } from '../observability/logger';
import { requireSameSiteWrite, headerValue } from './csrf';
import { httpErrorOf } from './errors';
import { idempotencyKeyOf, idempotentRunner } from './idempotency';
import { jsonError, toResult } from './response';
import { type Infer, loggablePath, type RouteAuth, type RouteContract } from './route';
import { parseJsonBody, requireJsonContentType, validatePart } from './validation';

interface RequestContext<C extends RouteContract, I = unknown> {
  params: Infer<C['params']>;
  query: Infer<C['query']>;
  body: Infer<C['body']>;
  /** The caller; null on routes with auth 'none' or 'capability'. */
  identity: C['auth'] extends 'none' | 'capability' ? null : I;
  event: APIGatewayProxyEventV2;
  lambdaContext: Context;
}

export type EndpointImpl<C extends RouteContract, I = unknown> = (ctx: RequestContext<C, I>) => Promise<unknown>;

export type HttpHandler = ((
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>) & {
  route: RouteContract;
};

export type AuthenticatedLevel = Exclude<RouteAuth, 'none' | 'capability'>;

/** Who is calling, as the injected resolver found it. */
export interface Caller<I> {
  identity: I;
  /** The caller's team id: scopes per-caller records (idempotency keys). */
  tenant: string;
  /** The credential travels with every browser request by itself (a cookie), so a cross-site page could have sent it. */
  ambient: boolean;
}

/** Resolves the caller of a signed-in route (401/403 as thrown domain errors, NotSignedInError/ForbiddenError). */
export type IdentityResolver<I> = (level: AuthenticatedLevel, event: APIGatewayProxyEventV2) => Promise<Caller<I>>;

const isSignedIn = (auth: RouteAuth): auth is AuthenticatedLevel => auth !== 'none' && auth !== 'capability';

/**
 * Errors become JSON with the spec's status and the error's own headers (Retry-After on a 429; CORS runs after
 * and adds its headers to these); anything unexpected is logged and answered 500 without internals.
 */
const errorResponses = (): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> => ({
  onError: async (request) => {
    const err = request.error;
    const known = httpErrorOf(err);
    if (known) {
      request.response = jsonError(known.status, known.body ?? { detail: known.detail }, known.headers);
      return;
    }
    logger.error('unhandled error', {
      error: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err),
    });
    request.response = jsonError(500, { detail: 'Internal server error' });
  },
});

/** One log line per call: method, route, status, duration. */
const requestLog = (
  route: RouteContract,
): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> => {
  const started = new WeakMap<object, number>();
  const line = (request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>) => {
    const status = request.response?.statusCode ?? 500;
    const fields = {
      method: route.method,
      route: route.path,
      // The template with its ids: a credential in the path (a homeowner link's token) is never written.
      path: loggablePath(route, request.event.pathParameters ?? {}),
      status,
      duration_ms: Date.now() - (started.get(request) ?? Date.now()),
      request_id: request.context?.awsRequestId,
    };
    if (status >= 500) logger.error('request', fields);
    else logger.info('request', fields);
  };
  return {
    before: async (request) => {
      started.set(request, Date.now());
    },
    after: async (request) => line(request),
    onError: async (request) => line(request),
  };
};

/** Headers of every answer, errors and redirects included: browsers never sniff a type other than the one named. */
const COMMON_RESPONSE_HEADERS: Readonly<Record<string, string>> = { 'x-content-type-options': 'nosniff' };

/** Registered outside the error handler, so the answers it makes of errors get the common headers too. */
const commonHeaders = (): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> => {
  const add = async (request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>) => {
    if (request.response) request.response.headers = { ...request.response.headers, ...COMMON_RESPONSE_HEADERS };
  };
  return { after: add, onError: add };
};

/**
 * Lambda freezes the container once the answer is returned, so what the request left for the outbound signals
 * (analytics events, error reports, log records, metrics) is sent first, within SIGNALS_TIMEOUT_MS. Registered
 * first, so it runs after every other middleware, the request log line included.
 */
const signalsFlush = (): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> => ({
  after: async () => flushSignals(),
  onError: async () => flushSignals(),
});

export function buildEndpoint<C extends RouteContract, I>(
  route: C,
  impl: EndpointImpl<C, I>,
  identify: IdentityResolver<I>,
): HttpHandler {
  const once = route.idempotent ? idempotentRunner(route) : undefined;
  const base = async (
    event: APIGatewayProxyEventV2,
    lambdaContext: Context,
  ): Promise<APIGatewayProxyStructuredResultV2> => {
    const caller = isSignedIn(route.auth) ? await identify(route.auth, event) : null;
    if (caller?.ambient) requireSameSiteWrite(route.method, event, settings().CORS_ORIGINS);
    const identity = caller?.identity ?? null;
    if (route.body) requireJsonContentType(headerValue(event, 'content-type'), event.body);
    const params = route.params ? validatePart('path', route.params, event.pathParameters ?? {}) : undefined;
    const query = route.query ? validatePart('query', route.query, event.queryStringParameters ?? {}) : undefined;
    const body = route.body
      ? validatePart('body', route.body, parseJsonBody(event.body, event.isBase64Encoded))
      : undefined;
    const run = async () =>
      toResult(
        await impl({ params, query, body, identity, event, lambdaContext } as RequestContext<C, I>),
        route.successStatus,
      );
    const key = once && caller ? idempotencyKeyOf(event) : null;
    if (!once || !caller || !key) return run();
    return once({ teamId: caller.tenant, key, request: { params, query, body }, context: lambdaContext }, run);
  };

  const config = settings();
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(base)
    .use(signalsFlush())
    .use(requestLog(route))
    .use(commonHeaders())
    .use(httpCors({ origins: config.CORS_ORIGINS, credentials: true }))
    .use(errorResponses())
    // Deployed stages read secret settings from SSM before the handler (lib/config/secrets.ts).
    .use({ before: async () => loadSecrets() });
  return Object.assign(handler as unknown as HttpHandler, { route });
}

/** The caller's IP as API Gateway saw it (for per-client limits); null when absent. */
export function clientIp(event: APIGatewayProxyEventV2): string | null {
  return event.requestContext?.http?.sourceIp || null;
}

/**
 * The request's body as the client sent it, byte for byte (what a signature is computed on). API Gateway always
 * hands it over as text; serverless offline hands a JSON body of `false` or `0` over as that value, whose text it
 * is (Buffer.from(false) would throw).
 */
export function rawBody(event: APIGatewayProxyEventV2): Buffer {
  const body: unknown = event.body;
  const text = typeof body === 'string' ? body : body === undefined || body === null ? '' : String(body);
  return Buffer.from(text, event.isBase64Encoded ? 'base64' : 'utf8');
}
