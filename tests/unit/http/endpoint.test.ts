/** Covers: lib/http/endpoint.ts (the middy stack), lib/api/endpoint.ts (its wiring with sign-in). */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { z } from 'zod';
import { loadSettings, resetSettings } from '../../../lib/config';
import { httpEndpoint, type HttpHandler } from '../../../lib/api/endpoint';
import { decodeCursor } from '../../../lib/db/pagination';
import { buildEndpoint, rawBody } from '../../../lib/http/endpoint';
import { NotFoundError } from '../../../lib/errors';
import { HttpError } from '../../../lib/http/errors';
import { HttpResponse } from '../../../lib/http/response';
import { defineRoute } from '../../../lib/http/route';
import { queryBool, uuid } from '../../../lib/http/schemas';
import { logger } from '../../../lib/observability/logger';

const ID = '0b8e5a52-6f4c-4b8e-9d1a-2f3c4d5e6f70';
const LOCAL_ORIGIN = 'http://localhost:3000';

function event(init: {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  isBase64Encoded?: boolean;
  pathParameters?: Record<string, string>;
  queryStringParameters?: Record<string, string>;
  cookies?: string[];
}): APIGatewayProxyEventV2 {
  const method = init.method ?? 'GET';
  const path = init.path ?? '/test';
  return {
    version: '2.0',
    routeKey: `${method} ${path}`,
    rawPath: path,
    rawQueryString: new URLSearchParams(init.queryStringParameters ?? {}).toString(),
    headers: init.headers ?? {},
    cookies: init.cookies,
    queryStringParameters: init.queryStringParameters,
    pathParameters: init.pathParameters,
    body: init.body,
    isBase64Encoded: init.isBase64Encoded ?? false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example.com',
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.1', userAgent: 'jest' },
      requestId: 'req-1',
      routeKey: `${method} ${path}`,
      stage: '$default',
      time: '01/Jan/2025:00:00:00 +0000',
      timeEpoch: 1735689600000,
    },
  };
}

const context = {
  awsRequestId: 'aws-req-1',
  functionName: 'unit',
  callbackWaitsForEmptyEventLoop: false,
} as unknown as Context;

async function call(handler: HttpHandler, ev: APIGatewayProxyEventV2) {
  const res = (await handler(ev, context)) as APIGatewayProxyStructuredResultV2;
  const headers = Object.fromEntries(Object.entries(res.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
  return { status: res.statusCode, headers, text: res.body ?? '', json: res.body ? JSON.parse(res.body) : undefined };
}

const base = { auth: 'none', tag: 'test', summary: 'unit test route', handler: 'unused' } as const;

const routes = {
  notFound: defineRoute({ ...base, name: 'tNotFound', method: 'GET', path: '/t/not-found' }),
  credits: defineRoute({ ...base, name: 'tCredits', method: 'POST', path: '/t/credits' }),
  boom: defineRoute({ ...base, name: 'tBoom', method: 'GET', path: '/t/boom' }),
  echo: defineRoute({
    ...base,
    name: 'tEcho',
    method: 'POST',
    path: '/t/things/{id}',
    params: z.object({ id: uuid() }),
    query: z.object({ dry_run: queryBool(false) }),
    body: z.strictObject({ name: z.string().min(1).max(10), count: z.number().int().optional() }),
  }),
  created: defineRoute({ ...base, name: 'tCreated', method: 'POST', path: '/t/created', successStatus: 201 }),
  noContent: defineRoute({ ...base, name: 'tNoContent', method: 'DELETE', path: '/t/no-content' }),
  user: defineRoute({ ...base, auth: 'user', name: 'tUser', method: 'GET', path: '/t/user' }),
  redirect: defineRoute({ ...base, name: 'tRedirect', method: 'GET', path: '/t/redirect' }),
};

const creditsBody = {
  detail: 'Insufficient credits',
  required_credits: 3,
  available_credits: 1,
  billing_url: 'https://billing.example.com',
};
const userImpl = jest.fn(async () => ({ reached: true }));

let handlers: Record<keyof typeof routes, HttpHandler>;
let errorSpy: jest.SpyInstance;

beforeAll(() => {
  resetSettings(
    loadSettings({
      env: {},
      overrides: {
        APP_ENV: 'production',
        CORS_ORIGINS: LOCAL_ORIGIN,
        CLAIMS_PLATFORM_JWT_SECRET: 'unit-secret-0123456789-0123456789-abcdef',
      },
      dotenvPath: '/nonexistent',
      machineFilePath: '/nonexistent',
    }),
  );
  handlers = {
    notFound: httpEndpoint(routes.notFound, async () => {
      throw new NotFoundError('x');
    }),
    credits: httpEndpoint(routes.credits, async () => {
      throw new HttpError(402, 'Insufficient credits', creditsBody);
    }),
    boom: httpEndpoint(routes.boom, async () => {
      throw new Error('connection string postgres://admin:hunter2@db failed');
    }),
    echo: httpEndpoint(routes.echo, async ({ params, query, body, identity }) => ({ params, query, body, identity })),
    created: httpEndpoint(routes.created, async () => ({ id: 'new' })),
    noContent: httpEndpoint(routes.noContent, async () => HttpResponse.noContent()),
    user: httpEndpoint(routes.user, userImpl),
    redirect: httpEndpoint(routes.redirect, async () => HttpResponse.redirect('https://media.example.com/x')),
  };
});
afterAll(() => resetSettings());

beforeEach(() => {
  errorSpy = jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  jest.spyOn(logger, 'info').mockImplementation(() => undefined);
  userImpl.mockClear();
});
afterEach(() => jest.restoreAllMocks());

const echoEvent = (over: Parameters<typeof event>[0] = {}) =>
  event({
    method: 'POST',
    path: `/t/things/${ID}`,
    pathParameters: { id: ID },
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'chair' }),
    ...over,
  });

describe('httpEndpoint errors', () => {
  it('keeps the route contract on the handler', () => {
    expect(handlers.echo.route).toBe(routes.echo);
  });

  it('answers an HttpError with its status and {"detail": ...}', async () => {
    const res = await call(handlers.notFound, event({ path: '/t/not-found' }));
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.text).toBe('{"detail":"x"}');
  });

  it('passes a custom error body (the 402 body) through unchanged', async () => {
    const res = await call(handlers.credits, event({ method: 'POST', path: '/t/credits' }));
    expect(res.status).toBe(402);
    expect(res.json).toEqual(creditsBody);
  });

  it('answers an unexpected error 500 with no internals leaked, and logs it', async () => {
    const res = await call(handlers.boom, event({ path: '/t/boom' }));
    expect(res.status).toBe(500);
    expect(res.text).toBe('{"detail":"Internal server error"}');
    expect(res.text).not.toContain('hunter2');
    expect(res.text).not.toMatch(/stack|at .*\.ts/);
    expect(errorSpy).toHaveBeenCalledWith(
      'unhandled error',
      expect.objectContaining({ error: expect.objectContaining({ message: expect.stringContaining('hunter2') }) }),
    );
  });
});

describe('httpEndpoint common headers', () => {
  it('forbid content sniffing on every answer: success, redirect, no content, refusals and failures', async () => {
    const answers = {
      200: await call(handlers.echo, echoEvent()),
      201: await call(handlers.created, event({ method: 'POST', path: '/t/created' })),
      204: await call(handlers.noContent, event({ method: 'DELETE', path: '/t/no-content' })),
      302: await call(handlers.redirect, event({ path: '/t/redirect' })),
      401: await call(handlers.user, event({ path: '/t/user' })),
      402: await call(handlers.credits, event({ method: 'POST', path: '/t/credits' })),
      404: await call(handlers.notFound, event({ path: '/t/not-found' })),
      422: await call(handlers.echo, echoEvent({ body: '{' })),
      500: await call(handlers.boom, event({ path: '/t/boom' })),
    };
    for (const [status, res] of Object.entries(answers))
      expect([status, res.status, res.headers['x-content-type-options']]).toEqual([status, Number(status), 'nosniff']);
    expect(answers[302].headers.location).toBe('https://media.example.com/x');
  });
});

describe('httpEndpoint validation (422)', () => {
  it('passes validated params, query and body to the handler and answers 200 JSON', async () => {
    const res = await call(
      handlers.echo,
      echoEvent({ queryStringParameters: { dry_run: 'true' }, body: JSON.stringify({ name: 'chair', count: 2 }) }),
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.json).toEqual({
      params: { id: ID },
      query: { dry_run: true },
      body: { name: 'chair', count: 2 },
      identity: null,
    });
  });

  it('applies query defaults when the query string is absent', async () => {
    const res = await call(handlers.echo, echoEvent());
    expect(res.status).toBe(200);
    expect(res.json.query).toEqual({ dry_run: false });
  });

  it('rejects a malformed JSON body with 422 naming the body', async () => {
    const res = await call(handlers.echo, echoEvent({ body: '{"name": "chair",' }));
    expect(res.status).toBe(422);
    expect(res.json.detail).toMatch(/body/);
    expect(res.json.errors).toEqual([{ field: 'body', message: 'malformed JSON' }]);
  });

  it('decodes a base64-encoded body', async () => {
    const res = await call(
      handlers.echo,
      echoEvent({ body: Buffer.from(JSON.stringify({ name: 'sofa' })).toString('base64'), isBase64Encoded: true }),
    );
    expect(res.status).toBe(200);
    expect(res.json.body).toEqual({ name: 'sofa' });
  });

  it('rejects an unknown field on a strict object and names it', async () => {
    const res = await call(handlers.echo, echoEvent({ body: JSON.stringify({ name: 'chair', colour: 'red' }) }));
    expect(res.status).toBe(422);
    expect(Array.isArray(res.json.errors)).toBe(true);
    expect(JSON.stringify(res.json.errors)).toContain('colour');
    expect(res.json.errors.every((e: { field: string }) => e.field.startsWith('body'))).toBe(true);
  });

  it('rejects a non-UUID path id naming path.id', async () => {
    const res = await call(handlers.echo, echoEvent({ path: '/t/things/42', pathParameters: { id: '42' } }));
    expect(res.status).toBe(422);
    expect(res.json.errors.map((e: { field: string }) => e.field)).toEqual(['path.id']);
    expect(res.json.detail).toContain('path.id');
  });

  it('rejects a bad query boolean naming query.dry_run', async () => {
    const res = await call(handlers.echo, echoEvent({ queryStringParameters: { dry_run: 'maybe' } }));
    expect(res.status).toBe(422);
    expect(res.json.errors).toEqual([{ field: 'query.dry_run', message: 'must be true or false' }]);
  });

  it('rejects a value that is too long naming body.name', async () => {
    const res = await call(handlers.echo, echoEvent({ body: JSON.stringify({ name: 'x'.repeat(11) }) }));
    expect(res.status).toBe(422);
    expect(res.json.errors.map((e: { field: string }) => e.field)).toEqual(['body.name']);
  });

  it('rejects a missing body on a route that takes one', async () => {
    const res = await call(handlers.echo, echoEvent({ body: undefined }));
    expect(res.status).toBe(422);
    expect(res.json.errors[0].field).toBe('body');
  });
});

describe('httpEndpoint success', () => {
  it('answers with the route’s successStatus', async () => {
    const res = await call(handlers.created, event({ method: 'POST', path: '/t/created' }));
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ id: 'new' });
  });

  it('passes an HttpResponse through (204, empty body)', async () => {
    const res = await call(handlers.noContent, event({ method: 'DELETE', path: '/t/no-content' }));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });
});

describe('httpEndpoint auth', () => {
  it('answers 401 on a user route without a token in production, without running the handler', async () => {
    const res = await call(handlers.user, event({ path: '/t/user' }));
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ detail: 'Invalid or expired token' });
    expect(userImpl).not.toHaveBeenCalled();
  });

  it('answers 401 on a user route with a garbage bearer token', async () => {
    const res = await call(handlers.user, event({ path: '/t/user', headers: { authorization: 'Bearer not.a.jwt' } }));
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ detail: 'Invalid or expired token' });
    expect(userImpl).not.toHaveBeenCalled();
  });
});

describe('httpEndpoint CORS', () => {
  it('reflects an allowed origin with credentials on success', async () => {
    const res = await call(
      handlers.echo,
      echoEvent({ headers: { 'content-type': 'application/json', origin: LOCAL_ORIGIN } }),
    );
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe(LOCAL_ORIGIN);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
  });

  it('reflects an allowed origin with credentials on an error response', async () => {
    const notFoundRes = await call(
      handlers.notFound,
      event({ path: '/t/not-found', headers: { origin: LOCAL_ORIGIN } }),
    );
    expect(notFoundRes.status).toBe(404);
    expect(notFoundRes.headers['access-control-allow-origin']).toBe(LOCAL_ORIGIN);
    expect(notFoundRes.headers['access-control-allow-credentials']).toBe('true');

    const unauth = await call(handlers.user, event({ path: '/t/user', headers: { origin: LOCAL_ORIGIN } }));
    expect(unauth.status).toBe(401);
    expect(unauth.headers['access-control-allow-origin']).toBe(LOCAL_ORIGIN);

    const boom = await call(handlers.boom, event({ path: '/t/boom', headers: { origin: LOCAL_ORIGIN } }));
    expect(boom.status).toBe(500);
    expect(boom.headers['access-control-allow-origin']).toBe(LOCAL_ORIGIN);
  });

  it('does not reflect a foreign origin', async () => {
    const ok = await call(
      handlers.echo,
      echoEvent({ headers: { 'content-type': 'application/json', origin: 'https://evil.example' } }),
    );
    expect(ok.status).toBe(200);
    expect(ok.headers['access-control-allow-origin']).not.toBe('https://evil.example');
    expect(ok.headers['access-control-allow-origin']).not.toBe('*');

    const err = await call(
      handlers.notFound,
      event({ path: '/t/not-found', headers: { origin: 'https://evil.example' } }),
    );
    expect(err.headers['access-control-allow-origin']).not.toBe('https://evil.example');
    expect(err.headers['access-control-allow-origin']).not.toBe('*');
  });
});

describe('httpEndpoint JSON bodies (415)', () => {
  it.each([
    'text/plain;charset=UTF-8',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/jsonp',
  ])('refuses a body sent as %s without running the handler', async (contentType) => {
    const impl = jest.fn(async () => ({ reached: true }));
    const handler = httpEndpoint(routes.echo, impl);
    const res = await call(handler, echoEvent({ headers: { 'content-type': contentType } }));
    expect(res.status).toBe(415);
    expect(res.json.detail).toMatch(/application\/json/);
    expect(impl).not.toHaveBeenCalled();
  });

  it('refuses a body with no content type', async () => {
    const res = await call(handlers.echo, echoEvent({ headers: {} }));
    expect(res.status).toBe(415);
  });

  it.each([
    'application/json',
    'Application/JSON; charset=utf-8',
    'application/merge-patch+json',
    'application/vnd.api+json;charset=UTF-8',
  ])('accepts %s', async (contentType) => {
    const res = await call(handlers.echo, echoEvent({ headers: { 'Content-Type': contentType } }));
    expect(res.status).toBe(200);
    expect(res.json.body).toEqual({ name: 'chair' });
  });
});

describe('httpEndpoint cross-site writes (403)', () => {
  const post = defineRoute({ ...base, auth: 'actor', name: 'tWrite', method: 'POST', path: '/t/write' });
  const get = defineRoute({ ...base, auth: 'user', name: 'tRead', method: 'GET', path: '/t/read' });
  const impl = jest.fn(async () => ({ written: true }));
  const resolver = (ambient: boolean) => async () => ({ identity: { name: 'caller' }, tenant: 'team-1', ambient });
  const cookieWrite = () => buildEndpoint(post, impl, resolver(true));
  const write = (headers: Record<string, string>) => event({ method: 'POST', path: '/t/write', headers });

  beforeEach(() => impl.mockClear());

  it.each([
    ['no Origin', {}],
    ['a foreign Origin', { origin: 'https://evil.example' }],
    ['an opaque Origin', { origin: 'null' }],
    ['an allowed host on another scheme', { origin: 'https://localhost:3000' }],
    ['an empty X-Requested-With', { 'x-requested-with': '' }],
  ])('refuses a cookie-signed write with %s, without running the handler', async (_name, headers) => {
    const res = await call(cookieWrite(), write(headers));
    expect(res.status).toBe(403);
    expect(res.json.detail).toMatch(/Cross-site request refused/);
    expect(impl).not.toHaveBeenCalled();
  });

  it.each([
    ['an allowed Origin', { origin: LOCAL_ORIGIN }],
    ['an allowed Origin with a trailing slash', { origin: `${LOCAL_ORIGIN}/` }],
    ['X-Requested-With', { 'X-Requested-With': 'XMLHttpRequest' }],
  ])('accepts a cookie-signed write with %s', async (_name, headers) => {
    const res = await call(cookieWrite(), write(headers));
    expect(res.status).toBe(200);
    expect(impl).toHaveBeenCalledTimes(1);
  });

  it('accepts a bearer-signed write without an Origin', async () => {
    const res = await call(buildEndpoint(post, impl, resolver(false)), write({}));
    expect(res.status).toBe(200);
  });

  it('leaves cookie-signed reads alone', async () => {
    const res = await call(
      buildEndpoint(get, impl, resolver(true)),
      event({ path: '/t/read', headers: { origin: 'https://evil.example' } }),
    );
    expect(res.status).toBe(200);
  });
});

describe('httpEndpoint lower-layer errors', () => {
  it('answers a forged page cursor 422 naming query.cursor', async () => {
    const handler = httpEndpoint(routes.notFound, async () =>
      decodeCursor(Buffer.from('{"a":1}').toString('base64url'), { index: 'gsi1', pk: 'TEAM#t#ACTIVITY' }),
    );
    const res = await call(handler, event({ path: '/t/not-found' }));
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      detail: expect.stringContaining('query.cursor'),
      errors: [{ field: 'query.cursor', message: expect.any(String) }],
    });
    expect(errorSpy).not.toHaveBeenCalled();
  });
});

describe('rawBody', () => {
  const withBody = (body: unknown, isBase64Encoded = false) =>
    ({ body, isBase64Encoded }) as unknown as APIGatewayProxyEventV2;

  it('is the body as sent, decoded from base64 when it came so, and empty when there is none', () => {
    expect(rawBody(withBody('{"a":1}')).toString()).toBe('{"a":1}');
    expect(rawBody(withBody(Buffer.from('héllo').toString('base64'), true)).toString()).toBe('héllo');
    expect(rawBody(withBody(undefined)).length).toBe(0);
    expect(rawBody(withBody(null)).length).toBe(0);
  });

  it('takes a JSON false or 0 the local emulator handed over as a value as its text, not a crash', () => {
    expect(rawBody(withBody(false)).toString()).toBe('false');
    expect(rawBody(withBody(0)).toString()).toBe('0');
  });
});
