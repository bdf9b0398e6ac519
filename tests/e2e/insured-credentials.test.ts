/**
 * The homeowner link's token is the credential of the public wizard: it must
 * never be written where the service's telemetry goes. The wizard is driven
 * over HTTP with the run's telemetry on (the fake OTLP collector, error
 * tracker and analytics service), and every log record, span and report they
 * received is searched for the token. The request log still names each call:
 * its route's template with the token masked.
 */
import { MASKED_CREDENTIAL } from '../../lib/http/route';
import { eventually } from '../support/api';
import { fakeOtlp } from '../support/fake-otlp';
import { fakePostHog } from '../support/fake-posthog';
import { fakeSentry } from '../support/fake-sentry';
import { addPhoto, homeowner, invitedLink, photo } from '../support/insured';

const otlp = fakeOtlp(process.env.TEST_FAKE_OTLP_URL as string);
const errors = fakeSentry(process.env.TEST_FAKE_SENTRY_URL as string);
const analytics = fakePostHog(process.env.TEST_FAKE_POSTHOG_URL as string);

it('writes no homeowner token to logs, spans, error reports or analytics, and logs each call by its masked route', async () => {
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

  // Each call is in the request log, by its route's template, the token masked.
  const lines = await eventually(async () => {
    const records = await otlp.logs(`/api/public/insured/${MASKED_CREDENTIAL}/rooms/${room.body.id}/files`);
    return records.length > 0 ? records : null;
  }, 20_000);
  expect(JSON.stringify(lines)).toContain('/api/public/insured/{token}/rooms/{room_id}/files');

  expect(await otlp.logs(link.token)).toEqual([]);
  expect(await otlp.spans(link.token)).toEqual([]);
  expect(await errors.envelopes(link.token)).toEqual([]);
  expect(await analytics.events(link.token)).toEqual([]);
});
