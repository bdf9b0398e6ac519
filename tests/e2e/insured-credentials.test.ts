/**
 * The homeowner link's token is the credential of the public wizard: it must
 * never be written where the service's telemetry goes.
 *  - Over HTTP with the run's telemetry on (the fake OTLP collector, error
 *    tracker and analytics service): every log record, span and report they
 *    received is searched for the token.
 *  - In this process, with the logger at INFO (the test service logs from
 *    WARN up, so its request lines are not printed): the public routes'
 *    handlers answer a call and the request log line they print names the
 *    route's template with the token masked.
 */
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { handler as addRoom } from '../../functions/api/insured/insured-add-room';
import { handler as wizardState } from '../../functions/api/insured/insured-wizard-state';
import { MASKED_CREDENTIAL } from '../../lib/http/route';
import { logger } from '../../lib/observability/logger';
import { fakeOtlp } from '../support/fake-otlp';
import { fakePostHog } from '../support/fake-posthog';
import { fakeSentry } from '../support/fake-sentry';
import { addPhoto, homeowner, invitedLink, photo } from '../support/insured';

const otlp = fakeOtlp(process.env.TEST_FAKE_OTLP_URL as string);
const errors = fakeSentry(process.env.TEST_FAKE_SENTRY_URL as string);
const analytics = fakePostHog(process.env.TEST_FAKE_POSTHOG_URL as string);

it('sends no homeowner token to the log collector, traces, error tracking or analytics', async () => {
  const link = await invitedLink();
  const h = homeowner(link.token);
  expect((await h.get()).status).toBe(200);
  expect((await h.post('/identify', { name: 'Pat Homeowner' })).status).toBe(200);
  const room = await h.post('/rooms', { name: 'Kitchen' });
  expect(room.status).toBe(200);
  await addPhoto(h, `/rooms/${room.body.id}/files`, await photo(3), { note: 'the kettle' });
  // A refused body and an unknown file: the error paths write their own lines.
  expect((await h.post('/rooms', { name: '' })).status).toBe(422);
  expect((await h.get('/files/0f8fad5b-d9cb-469f-a165-70867728950e/content')).status).toBe(404);

  expect(await otlp.logs(link.token)).toEqual([]);
  expect(await otlp.spans(link.token)).toEqual([]);
  expect(await errors.envelopes(link.token)).toEqual([]);
  expect(await analytics.events(link.token)).toEqual([]);
});

function publicCall(method: string, template: string, token: string, body?: unknown): APIGatewayProxyEventV2 {
  const path = template.replace('{token}', token);
  return {
    version: '2.0',
    routeKey: `${method} ${template}`,
    rawPath: path,
    rawQueryString: '',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    pathParameters: { token },
    body: body === undefined ? undefined : JSON.stringify(body),
    isBase64Encoded: false,
    requestContext: {
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'jest' },
      requestId: 'credential-test',
      routeKey: `${method} ${template}`,
      stage: '$default',
      timeEpoch: Date.now(),
    },
  } as unknown as APIGatewayProxyEventV2;
}

it('prints each public call in the request log by its route, the token masked', async () => {
  const link = await invitedLink();
  const printed: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed.push(String(chunk));
    return true;
  });
  const level = logger.getLevelName();
  logger.setLogLevel('INFO');
  try {
    const context = { awsRequestId: 'credential-test' } as Context;
    const state = await wizardState(publicCall('GET', '/api/public/insured/{token}', link.token), context);
    expect(state.statusCode).toBe(200);
    const room = await addRoom(
      publicCall('POST', '/api/public/insured/{token}/rooms', link.token, { name: 'Attic' }),
      context,
    );
    expect(room.statusCode).toBe(200);
    const forged = await wizardState(publicCall('GET', '/api/public/insured/{token}', `${link.token}x`), context);
    expect(forged.statusCode).toBe(404);
  } finally {
    logger.setLogLevel(level);
    write.mockRestore();
  }
  const requests = printed.filter((line) => line.includes('"message":"request"'));
  expect(requests.map((line) => JSON.parse(line).path)).toEqual([
    `/api/public/insured/${MASKED_CREDENTIAL}`,
    `/api/public/insured/${MASKED_CREDENTIAL}/rooms`,
    `/api/public/insured/${MASKED_CREDENTIAL}`,
  ]);
  expect(printed.join('')).not.toContain(link.token);
});
