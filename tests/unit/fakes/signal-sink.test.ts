/**
 * The outage modes of the signal fakes (tests/fakes/signal-sink.ts), here on
 * the analytics fake over real HTTP: a mode given a `match` holds only for
 * deliveries whose body (unzipped) contains it; the rest are taken as usual.
 */
import { gzipSync } from 'node:zlib';
import { type FakePostHog, startFakePostHog } from '../../fakes/posthog-server';

let fake: FakePostHog;
beforeAll(async () => {
  fake = await startFakePostHog();
});
afterAll(() => fake.stop());
afterEach(() => fake.reset());

const capture = (distinctId: string, gzip = false) => {
  const body = JSON.stringify({ api_key: fake.apiKey, event: 'probe', distinct_id: distinctId, properties: {} });
  return fetch(`${fake.url}/capture/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(gzip ? { 'content-encoding': 'gzip' } : {}) },
    body: gzip ? gzipSync(body) : body,
  });
};
const control = (body: unknown) =>
  fetch(`${fake.url}/__fake/mode`, { method: 'POST', body: JSON.stringify(body) }).then(async (r) => ({
    status: r.status,
    body: await r.json(),
  }));

it('refuses only the deliveries that contain the match, gzipped or not, and takes the others', async () => {
  expect((await control({ mode: 'refusing', match: 'user-a' })).status).toBe(200);
  expect((await capture('user-a')).status).toBe(503);
  expect((await capture('user-a', true)).status).toBe(503);
  expect((await capture('user-b')).status).toBe(200);
  expect((await capture('user-b', true)).status).toBe(200);
  expect(fake.events.map((e) => e.distinct_id)).toEqual(['user-b', 'user-b']);
});

it('holds for every delivery without a match, and back up forgets the match', async () => {
  await control({ mode: 'refusing' });
  expect((await capture('user-b')).status).toBe(503);
  await control({ mode: 'refusing', match: 'user-a' });
  await control({ mode: 'up' });
  await control({ mode: 'refusing' });
  expect((await capture('user-b')).status).toBe(503);
  const stats = await fetch(`${fake.url}/__fake/stats`).then((r) => r.json());
  expect(stats).toMatchObject({ mode: 'refusing', match: null, received: { capture: 2 } });
});

it('refuses a match that is not a non-empty string', async () => {
  expect(await control({ mode: 'down', match: '' })).toMatchObject({ status: 400 });
  expect(await control({ mode: 'down', match: 7 })).toMatchObject({ status: 400 });
});
