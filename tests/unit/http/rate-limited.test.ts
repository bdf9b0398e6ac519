/**
 * A RateLimitedError (lib/errors.ts) answers 429 with Retry-After in whole
 * seconds (an UnavailableError that knows when, 503 with it too) (lib/http/errors.ts httpErrorOf), and the endpoint's error
 * middleware (lib/http/endpoint.ts) sends that header alongside the JSON
 * content type and the CORS headers.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { loadSettings, resetSettings } from '../../../lib/config';
import { NotFoundError, RateLimitedError, UnavailableError } from '../../../lib/errors';
import { buildEndpoint } from '../../../lib/http/endpoint';
import { HttpError, httpErrorOf, STATUS_OF_DOMAIN_ERROR } from '../../../lib/http/errors';
import { defineRoute } from '../../../lib/http/route';
import { logger } from '../../../lib/observability/logger';

const LOCAL_ORIGIN = 'http://localhost:3000';

describe('httpErrorOf', () => {
  it('maps rate_limited to 429', () => {
    expect(STATUS_OF_DOMAIN_ERROR.rate_limited).toBe(429);
  });

  it.each([
    [30, '30'],
    [2.1, '3'],
    [0.2, '1'],
    [0, '1'],
    [-4, '1'],
    [Number.NaN, '1'],
  ])('answers a RateLimitedError of %s s with 429 and Retry-After %s', (seconds, header) => {
    const answer = httpErrorOf(new RateLimitedError('Too many requests, slow down', seconds));
    expect(answer).toBeInstanceOf(HttpError);
    expect(answer).toMatchObject({ status: 429, detail: 'Too many requests, slow down', body: undefined });
    expect(answer?.headers).toEqual({ 'Retry-After': header });
  });

  it('answers an UnavailableError that knows when with 503 and Retry-After, one that does not without', () => {
    expect(httpErrorOf(new UnavailableError('carries on in the background', 10))).toMatchObject({
      status: 503,
      headers: { 'Retry-After': '10' },
    });
    expect(httpErrorOf(new UnavailableError('not configured'))?.headers).toBeUndefined();
  });

  it('gives other errors no extra headers', () => {
    expect(httpErrorOf(new NotFoundError())?.headers).toBeUndefined();
    expect(httpErrorOf(new HttpError(409, 'taken'))?.headers).toBeUndefined();
  });
});

describe('a built endpoint refusing with RateLimitedError', () => {
  const route = defineRoute({
    auth: 'none',
    tag: 'test',
    summary: 'unit test route',
    handler: 'unused',
    name: 'tLimited',
    method: 'POST',
    path: '/t/limited',
  });

  const event = (headers: Record<string, string>): APIGatewayProxyEventV2 =>
    ({
      version: '2.0',
      routeKey: 'POST /t/limited',
      rawPath: '/t/limited',
      rawQueryString: '',
      headers,
      isBase64Encoded: false,
      requestContext: { http: { method: 'POST', path: '/t/limited', sourceIp: '203.0.113.1' } },
    }) as unknown as APIGatewayProxyEventV2;
  const context = { awsRequestId: 'aws-req-1', functionName: 'unit' } as unknown as Context;

  beforeAll(() =>
    resetSettings(
      loadSettings({
        env: {},
        overrides: { APP_ENV: 'production', CORS_ORIGINS: LOCAL_ORIGIN },
        dotenvPath: '/nonexistent',
        machineFilePath: '/nonexistent',
      }),
    ),
  );
  afterAll(() => resetSettings());
  beforeEach(() => {
    jest.spyOn(logger, 'info').mockImplementation(() => undefined);
    jest.spyOn(logger, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('answers 429 {"detail"} with Retry-After, the JSON content type and the CORS headers together', async () => {
    const handler = buildEndpoint(
      route,
      async () => {
        throw new RateLimitedError('Too many requests, slow down', 17.4);
      },
      async () => {
        throw new Error('no sign-in on this route');
      },
    );
    const res = (await handler(event({ origin: LOCAL_ORIGIN }), context)) as APIGatewayProxyStructuredResultV2;
    const headers = Object.fromEntries(Object.entries(res.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
    expect(res.statusCode).toBe(429);
    expect(JSON.parse(res.body ?? '')).toEqual({ detail: 'Too many requests, slow down' });
    expect(headers).toMatchObject({
      'retry-after': '18',
      'content-type': 'application/json',
      'access-control-allow-origin': LOCAL_ORIGIN,
      'access-control-allow-credentials': 'true',
    });
    expect(logger.error).not.toHaveBeenCalled();
  });
});
