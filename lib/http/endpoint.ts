/**
 * The middy stack every HTTP handler is built with:
 *   request log line → CORS (CORS_ORIGINS) → errors as {"detail": ...} →
 *   auth for the route's level → path/query/body validation (422) → handler.
 * Handlers stay thin: they get validated input and the caller's identity, call
 * one domain function and return a value (200 JSON) or an HttpResponse.
 */
import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { settings } from '../config';
import { adminIdentity, currentIdentity, type Identity } from '../auth/identity';
import { logger } from '../observability/logger';
import { HttpError } from './errors';
import { jsonError, toResult } from './response';
import type { Infer, RouteContract } from './route';
import { parseJsonBody, validatePart } from './validation';

export interface RequestContext<C extends RouteContract> {
  params: Infer<C['params']>;
  query: Infer<C['query']>;
  body: Infer<C['body']>;
  /** The caller; null on routes with auth 'none' or 'capability'. */
  identity: C['auth'] extends 'none' | 'capability' ? null : Identity;
  event: APIGatewayProxyEventV2;
  lambdaContext: Context;
}

export type EndpointImpl<C extends RouteContract> = (ctx: RequestContext<C>) => Promise<unknown>;

export type HttpHandler = ((event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>) & {
  route: RouteContract;
};

async function identify(route: RouteContract, event: APIGatewayProxyEventV2): Promise<Identity | null> {
  switch (route.auth) {
    case 'none':
    case 'capability':
      return null;
    case 'admin':
      return adminIdentity(event);
    default:
      return currentIdentity(event);
  }
}

/** Errors become JSON with the spec's status; anything unexpected is logged and answered 500 without internals. */
const errorResponses = (): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> => ({
  onError: async (request) => {
    const err = request.error;
    if (err instanceof HttpError) {
      request.response = jsonError(err.status, err.body ?? { detail: err.detail });
      return;
    }
    logger.error('unhandled error', { error: err instanceof Error ? { name: err.name, message: err.message, stack: err.stack } : String(err) });
    request.response = jsonError(500, { detail: 'Internal server error' });
  },
});

/** One log line per call: method, route, status, duration. */
const requestLog = (route: RouteContract): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> => {
  const started = new WeakMap<object, number>();
  const line = (request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>) => {
    const status = request.response?.statusCode ?? 500;
    const fields = {
      method: route.method,
      route: route.path,
      path: request.event.rawPath,
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

export function httpEndpoint<C extends RouteContract>(route: C, impl: EndpointImpl<C>): HttpHandler {
  const base = async (event: APIGatewayProxyEventV2, lambdaContext: Context): Promise<APIGatewayProxyStructuredResultV2> => {
    const identity = await identify(route, event);
    const params = route.params ? validatePart('path', route.params, event.pathParameters ?? {}) : undefined;
    const query = route.query ? validatePart('query', route.query, event.queryStringParameters ?? {}) : undefined;
    const body = route.body ? validatePart('body', route.body, parseJsonBody(event.body, event.isBase64Encoded)) : undefined;
    const result = await impl({ params, query, body, identity, event, lambdaContext } as RequestContext<C>);
    return toResult(result, route.successStatus);
  };

  const config = settings();
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>(base)
    .use(requestLog(route))
    .use(httpCors({ origins: config.CORS_ORIGINS, credentials: true }))
    .use(errorResponses());
  return Object.assign(handler as unknown as HttpHandler, { route });
}
