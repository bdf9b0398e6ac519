/**
 * The claims platform send over HTTP, against the run's fake claims platform
 * (tests/fakes/claims-platform-server.ts), fake billing service and the
 * engine's units: the synchronous claim and room sync, the
 * background items, photos and analysis, the Submission's lifecycle, charges
 * under as-send keys, re-submission of what failed, and the refusals; each
 * submission failure reaches the run's fake error tracker by ids only.
 */
import { randomUUID } from 'node:crypto';
import { Client, eventually } from '../support/api';
import { fakeBilling } from '../support/fake-billing';
import { fakeClaimsPlatform } from '../support/fake-claims-platform';
import { fakeSentry } from '../support/fake-sentry';
import { jobWithItems, typedItems } from '../support/inventory';
import { PUBLIC_BASE_URL } from '../support/sends';
import { type LoginClaimsInput, newTeamMember } from '../support/tokens';
import { setFields } from '../support/aws';
import { newRoom } from '../support/uploads';
import { signalId } from '../support/outbound-ids';

const fake = () => fakeClaimsPlatform(process.env.TEST_FAKE_CLAIMS_PLATFORM_URL as string);
const errors = fakeSentry(process.env.TEST_FAKE_SENTRY_URL as string);

interface PlatformTeam {
  client: Client;
  member: LoginClaimsInput;
  token: string;
  claimId: string;
  roomId: string;
  jobId: string;
  items: any[];
}

/** A team on the fake platform with Toaster and Kettle in its Kitchen: typed in by hand unless `photos` (then read from photos). */
async function platformTeam(
  overrides: Partial<LoginClaimsInput> = {},
  balance = 1000,
  photos = false,
): Promise<PlatformTeam> {
  const token = `cp-token-${randomUUID()}`;
  await fake().registerToken(token);
  const member = newTeamMember({ current_team_token: token, ...overrides });
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, 1000);
  const room = await newRoom(client, 'Kitchen');
  const { jobId, items } = photos
    ? await jobWithItems(client, room.id, [['Toaster'], ['Kettle']])
    : await typedItems(client, room, ['Toaster', 'Kettle']);
  await fakeBilling.setBalance(member.current_team_id, balance);
  return { client, member, token, claimId: room.claim_id, roomId: room.id, jobId, items };
}

const submit = (t: PlatformTeam, body: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, body, { headers });

const spendsOf = async (t: PlatformTeam) =>
  (await fakeBilling.spends(t.member.current_team_id)).filter((s) => s.reference.startsWith('as-send:'));

/** The run's error-tracking report that names `id` (a claim or item id): its event and its bytes as sent. */
async function reportOf(id: string) {
  const envelope = await eventually(async () => (await errors.envelopes(signalId(id)))[0]);
  const event = envelope.items.find((i) => i.header.type === 'event')?.payload as Record<string, any>;
  return { event, raw: envelope.raw };
}

function expectNoPersonalData(raw: string, t: PlatformTeam) {
  for (const personal of [t.member.email, t.member.user_name, t.member.current_team_name, t.token, t.client.token])
    expect(raw).not.toContain(personal as string);
}

/** Waits for the submission to finish in the background; the claim's submissions answer. */
async function finished(t: PlatformTeam, id: string) {
  return eventually(
    async () => {
      const res = await t.client.get(`/api/claims/${t.claimId}/submissions`);
      const submission = res.body.submissions.find((s: any) => s.id === id);
      return submission?.status === 'complete' ? res.body : null;
    },
    60_000,
    300,
  );
}

// Every case has a team, claim and platform token of its own, and the fake's failures match that token or its items,
// so the cases run side by side.
describe('submit-to-claims-platform', () => {
  it.concurrent('syncs the claim and rooms, sends items, photos and analysis in the background, and completes the Submission', async () => {
    const t = await platformTeam({}, 1000, true);
    const quote = await t.client.post(`/api/claims/${t.claimId}/claims-platform-quote`, {});
    expect(quote.body).toMatchObject({ item_count: 2, credits: 2, already_submitted: 0, enterprise: false });
    const profiles = await t.client.get(`/api/claims/${t.claimId}/claims-platform-profiles`);
    expect(profiles.body.shopping_profiles.length).toBeGreaterThan(0);

    const res = await submit(t, { shopping_profile_id: 'shop-premium' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'processing', item_count: 2, credits_charged: 2, dry_run: false });
    expect(res.body.claim_key).toEqual(expect.any(String));
    const history = await finished(t, res.body.id);
    const done = history.submissions[0];
    expect(done).toMatchObject({ status: 'complete', done_count: 2, failed_count: 0, claim_key: res.body.claim_key });
    expect(done.photo_count).toBeGreaterThanOrEqual(2);
    expect(done.processing_seconds).toEqual(expect.any(Number));
    expect(history).toMatchObject({ total_items: 2, unsubmitted_items: 0 });

    const [remote] = await fake().claims(t.token);
    expect(remote).toMatchObject({ external_reference: t.claimId, claim_key: res.body.claim_key });
    expect(remote.fields).toMatchObject({ shopping_profile_id: 'shop-premium', adjuster_id: Number(t.member.user_id) });
    expect(remote.rooms.map((r) => r.name)).toEqual(['Kitchen']);
    expect(remote.items.map((i) => i.external_id).sort()).toEqual(t.items.map((i) => i.id).sort());
    for (const item of remote.items) {
      expect(item.analyze_requested).toBe(true);
      expect(item.photos[0]).toMatchObject({
        is_primary: true,
        url: expect.stringMatching(`^${PUBLIC_BASE_URL}/api/photos/`),
      });
    }
    expect((await spendsOf(t)).map((s) => [s.reference, s.amount])).toEqual([[`as-send:${t.claimId}:0`, 2]]);
    // A submitted claim cannot be archived.
    expect((await t.client.post(`/api/claims/${t.claimId}/archive`)).status).toBe(400);
  });

  it.concurrent('re-submits only what is new or failed, one item at a time, each batch under its own key; a failed item is refunded', async () => {
    const t = await platformTeam();
    const [toaster, kettle] = t.items;
    await fake().failNext('422', { match: `/items/${kettle.id}`, detail: 'title rejected' });
    const first = await submit(t);
    const history = await finished(t, first.body.id);
    expect(history.submissions[0]).toMatchObject({ done_count: 1, failed_count: 1 });
    expect(history.unsubmitted_items).toBe(1);
    // Error tracking hears of the item that failed for good, by ids only (the platform's words stay out).
    const itemReport = await reportOf(kettle.id);
    expect(itemReport.event).toMatchObject({
      level: 'warning',
      tags: {
        kind: 'claims_platform_submission',
        step: 'item',
        item_id: signalId(kettle.id),
        submission_id: signalId(first.body.id),
      },
    });
    expectNoPersonalData(itemReport.raw, t);
    expect(itemReport.raw).not.toContain('title rejected');

    const again = await submit(t);
    expect(again.status).toBe(200);
    expect(again.body.item_count).toBe(1);
    await finished(t, again.body.id);
    const itemPuts = (await fake().requests({ token: t.token, match: `/items/${toaster.id}` })).filter(
      (r) => r.method === 'PUT' && !r.decoded_path.includes('/photos/'),
    );
    expect(itemPuts).toHaveLength(1);
    // The item that failed for good gave its credit back, once, under its own refund key; the next send paid for it.
    expect(await spendsOf(t)).toEqual([
      {
        reference: `as-send:${t.claimId}:0`,
        amount: 2,
        refunded: 1,
        refunds: [`as-send:${t.claimId}:0:item:${kettle.id}`],
      },
      { reference: `as-send:${t.claimId}:1`, amount: 1, refunded: 0, refunds: [] },
    ]);
    expect((await submit(t)).status).toBe(400);
  });

  it.concurrent('charges and submits once for a double click', async () => {
    const t = await platformTeam();
    const [a, b] = await Promise.all([submit(t), submit(t)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.id).toBe(b.body.id);
    await finished(t, a.body.id);
    expect((await t.client.get(`/api/claims/${t.claimId}/submissions`)).body.submissions).toHaveLength(1);
    expect((await spendsOf(t)).map((s) => s.amount)).toEqual([2]);
  });

  it.concurrent('replays the first answer for a retry carrying the same Idempotency-Key, even after the send finished', async () => {
    const t = await platformTeam();
    const key = randomUUID();
    const first = await submit(t, {}, { 'Idempotency-Key': key });
    expect(first.status).toBe(200);
    await finished(t, first.body.id);
    const again = await submit(t, {}, { 'Idempotency-Key': key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await submit(t)).status).toBe(400);
    expect((await spendsOf(t)).map((s) => s.amount)).toEqual([2]);
  });

  it.concurrent('answers 502 and refunds when the platform refuses the claim; a later attempt is charged again', async () => {
    const t = await platformTeam();
    // Every attempt of the claim's sync call (the client tries 3 times).
    await fake().failNext('503', { match: t.token, count: 3 });
    const res = await submit(t);
    expect(res.status).toBe(502);
    const syncReport = await reportOf(t.claimId);
    expect(syncReport.event).toMatchObject({
      level: 'error',
      tags: {
        kind: 'claims_platform_submission',
        step: 'claim_sync',
        claim_id: signalId(t.claimId),
        team_id: expect.any(String),
      },
      exception: { values: [{ type: 'ClaimsPlatformSubmissionFailure' }] },
    });
    expectNoPersonalData(syncReport.raw, t);
    const spends = await spendsOf(t);
    expect(spends).toHaveLength(1);
    expect(spends[0].refunded).toBe(2);
    await fake().failNext('401', { match: t.token });
    expect((await submit(t)).status).toBe(502);
    const retried = await submit(t);
    expect(retried.status).toBe(200);
    await finished(t, retried.body.id);
    expect((await spendsOf(t)).map((s) => s.reference)).toEqual([
      `as-send:${t.claimId}:0`,
      `as-send:${t.claimId}:0:r2`,
      `as-send:${t.claimId}:0:r3`,
    ]);
    const history = await t.client.get(`/api/claims/${t.claimId}/submissions`);
    expect(history.body.submissions.map((s: any) => s.status)).toEqual(['complete', 'failed', 'failed']);
  });

  it.concurrent('answers 402 when credits are short and writes nothing', async () => {
    const t = await platformTeam({}, 1);
    const res = await submit(t);
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ error: 'insufficient_credits', required_amount: 2 });
    expect(await fake().requests({ token: t.token })).toEqual([]);
    expect((await t.client.get(`/api/claims/${t.claimId}/submissions`)).body.submissions).toEqual([]);
  });

  it.concurrent('forwards no adjuster id for a UUID user, and leaves archived rooms out', async () => {
    const t = await platformTeam({ user_id: randomUUID() });
    const other = await newRoom(t.client, 'Garage');
    await jobWithItems(t.client, other.id, [['Drill']]);
    expect((await t.client.post(`/api/rooms/${other.id}/archive`)).status).toBe(200);
    const res = await submit(t);
    await finished(t, res.body.id);
    const [remote] = await fake().claims(t.token);
    expect(remote.fields.adjuster_id).toBeUndefined();
    expect(remote.rooms.map((r) => r.name)).toEqual(['Kitchen']);
    expect(remote.items).toHaveLength(2);
  });

  it.concurrent('409 without a team token, before any network call', async () => {
    const member = newTeamMember({ current_team_token: undefined });
    const client = await Client.signIn(member);
    const room = await newRoom(client);
    const res = await client.post(`/api/claims/${room.claim_id}/submit-to-claims-platform`, {});
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatch(/no claims platform token/);
    expect((await client.get(`/api/claims/${room.claim_id}/claims-platform-profiles`)).status).toBe(409);
  });

  it.concurrent('a training claim is a dry run: nothing leaves, nothing is charged, a stand-in key is recorded', async () => {
    const t = await platformTeam();
    await setFields(`CLAIM#${t.claimId}`, 'CLAIM', { is_training: true });
    const res = await submit(t);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'complete', dry_run: true, credits_charged: 0, done_count: 2 });
    expect(res.body.claim_key).toMatch(/^TRAINING-/);
    expect(await fake().requests({ token: t.token })).toEqual([]);
    expect(await spendsOf(t)).toEqual([]);
    expect((await t.client.get(`/api/claims/${t.claimId}/submissions`)).body.unsubmitted_items).toBe(0);
  });
});
