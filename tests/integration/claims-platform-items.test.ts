/**
 * The items of a claims platform send, sent by the units of the send's run
 * on the engine (lib/sends/claims-platform-run-service.ts,
 * claims-platform-item-service.ts), through the real route against the
 * stack's fake claims platform: a transient failure runs the item's unit
 * again after a backoff, so an item whose platform came back goes out soon
 * after; an item whose every attempt failed is counted failed when the send
 * completes, and only its share of the charge comes back; a unit run again
 * for an item already counted changes nothing.
 */
import { deliverSubmissionItem } from '../../lib/sends/claims-platform-item-service';
import { itemRefundReference } from '../../lib/sends/claims-platform-rules';
import { submissionItemIds } from '../../lib/sends/submission-item-store';
import { getSubmission } from '../../lib/sends/submission-store';
import { getItem } from '../../lib/inventory/item-store';
import { eventually } from '../support/api';
import { fakeBilling } from '../support/fake-billing';
import { fakeClaimsPlatform } from '../support/fake-claims-platform';
import { claimsPlatformTeam } from '../support/sends';

jest.setTimeout(120_000);

const fake = () => fakeClaimsPlatform(process.env.TEST_FAKE_CLAIMS_PLATFORM_URL as string);

const completed = (id: string, timeoutMs = 90_000) =>
  eventually(
    async () => {
      const s = await getSubmission(id);
      return s?.status === 'complete' ? s : null;
    },
    timeoutMs,
    250,
  );

it.concurrent('an item the platform never takes is tried again after a backoff, then counted failed and refunded alone; a unit run again counts nothing twice', async () => {
  const t = await claimsPlatformTeam(['Radio', 'Clock'], 100);
  const [radio, clock] = t.items.map((i) => i.id);
  // Every attempt for the radio fails (three units' tries of the client's three calls each, and more).
  await fake().failNext('503', { match: `/items/${radio}`, count: 30 });
  const res = await t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
  expect(res.status).toBe(200);
  const done = await completed(res.body.id);
  expect(done).toMatchObject({ done_count: 1, failed_count: 1 });
  // Its unit ran three times, each after a backoff: more than one client attempt's worth of requests reached it.
  expect((await fake().requests({ match: `/items/${radio}` })).length).toBeGreaterThan(3);
  expect(await submissionItemIds(done.id, 'failed')).toEqual([radio]);
  expect((await getItem(radio))?.claims_platform_submitted_at).toBeNull();
  expect((await getItem(clock))?.claims_platform_submitted_at).toEqual(expect.any(String));
  // Only the radio's share came back; the clock went out and stays paid for.
  await eventually(async () => {
    const [spend] = (await fakeBilling.spends(t.member.current_team_id as number)).filter(
      (s) => s.reference === done.charge_key,
    );
    return spend?.refunded === 1 ? spend : null;
  });
  const [spend] = (await fakeBilling.spends(t.member.current_team_id as number)).filter(
    (s) => s.reference === done.charge_key,
  );
  expect(spend).toMatchObject({ amount: 2, refunded: 1, refunds: [itemRefundReference(done.charge_key, radio)] });

  // A unit delivered again for an item already counted: nothing is sent or counted twice.
  const before = (await fake().requests({ match: `/items/${clock}` })).length;
  await deliverSubmissionItem(done, clock);
  expect((await fake().requests({ match: `/items/${clock}` })).length).toBe(before);
  expect(await getSubmission(done.id)).toMatchObject({ done_count: 1, failed_count: 1 });
  const [remote] = await fake().claims(t.token);
  expect(remote.items.map((i) => i.external_id)).toEqual([clock]);
});

it.concurrent('an item whose platform failed for a while is sent again after a backoff, not after the queue visibility timeout', async () => {
  const t = await claimsPlatformTeam(['Lamp']);
  const itemId = t.items[0].id;
  // Every try of the first two unit attempts fails (the client tries each call three times), then the platform is back.
  await fake().failNext('503', { match: `/items/${itemId}`, count: 6 });
  const res = await t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
  expect(res.status).toBe(200);
  await eventually(async () => (await fake().requests({ match: `/items/${itemId}` })).length >= 6, 60_000, 200);
  const recovered = Date.now();
  const done = await completed(res.body.id, 120_000);
  expect(done).toMatchObject({ done_count: 1, failed_count: 0 });
  // The units queue's visibility timeout is many minutes; the engine's backoff after a second failure is 10 s.
  expect(Date.now() - recovered).toBeLessThan(60_000);
});
