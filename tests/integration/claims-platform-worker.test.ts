/**
 * The submissions queue worker (lib/sends/claims-platform-worker-service.ts)
 * called in-process against the embedded stack and the run's fake claims
 * platform, for the delivery cases a queue produces only slowly: a transient
 * failure is retried by the queue (the handler throws), the last delivery
 * counts the item failed (also when the message came by direct invoke while
 * the queue was down), and a message delivered twice is counted once.
 */
import { randomUUID } from 'node:crypto';
import { chargeSend } from '../../lib/billing/send-charge-service';
import { keys } from '../../lib/db/keys';
import { ClaimsPlatformClient } from '../../lib/integrations/claims-platform';
import { getItem } from '../../lib/inventory/item-store';
import { DIRECT_INVOKE_RECEIPT } from '../../lib/queue/dispatch';
import { itemRefundReference, MAX_RESUMES } from '../../lib/sends/claims-platform-rules';
import { handleSubmissionMessage } from '../../lib/sends/claims-platform-worker-service';
import { recordSubmissionItems, submissionItemIds } from '../../lib/sends/submission-item-store';
import { getSubmission, openSubmission, type Submission } from '../../lib/sends/submission-store';
import { sweepExpiredSends } from '../../lib/sends/submission-sweep-service';
import { getTeam, type Team } from '../../lib/teams/store';
import { Client, eventually } from '../support/api';
import { setFields } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { fakeClaimsPlatform } from '../support/fake-claims-platform';
import { jobWithItems } from '../support/inventory';
import { newTeamMember } from '../support/tokens';
import { newRoom } from '../support/uploads';
import { claimsPlatformTeam, expireSubmissionLease } from '../support/sends';

async function setSubmissionFields(id: string, fields: Record<string, unknown>) {
  const key = keys.submission(id);
  await setFields(key.pk, key.sk, fields);
}

jest.setTimeout(120_000);

// Each case has a team, claim and submission of its own and spends most of its time waiting (the client's retries, a
// held upload, the queue's backoff), so the cases run side by side. The send sweep in one of them takes only sends
// whose lease has run out, which no other case's is.

const fake = () => fakeClaimsPlatform(process.env.TEST_FAKE_CLAIMS_PLATFORM_URL as string);
const delivery = (n: number) => ({ attributes: { ApproximateReceiveCount: String(n) } as never });

/** A team whose claim and room are on the fake platform, and a Submission of its two items in processing. */
async function pendingSubmission(
  options: { credits?: number } = {},
): Promise<{ submission: Submission; token: string; itemIds: string[]; team: Team }> {
  const token = `cp-worker-${randomUUID()}`;
  await fake().registerToken(token);
  const member = newTeamMember({ current_team_token: token });
  const client = await Client.signIn(member);
  await fakeBilling.setBalance(member.current_team_id, 1000);
  const room = await newRoom(client, 'Den');
  const { items } = await jobWithItems(client, room.id, [['Radio'], ['Clock']]);
  const me = await client.get('/api/auth/me');
  const itemIds = items.map((i) => i.id);
  // The claim and its rooms exist remotely, as the request's synchronous part leaves them.
  const platform = new ClaimsPlatformClient({ baseUrl: process.env.TEST_FAKE_CLAIMS_PLATFORM_URL as string, token });
  const platformClaim = await platform.upsertClaim(room.claim_id, { claim_number: 'W-1' });
  if (platformClaim.outcome !== 'ok') throw new Error('claim upsert failed');
  const rooms = await platform.syncRooms(platformClaim.body.claim_key, [{ external_id: room.id, name: 'Den' }]);
  if (rooms.outcome !== 'ok') throw new Error('room sync failed');
  const submission: Submission = {
    id: randomUUID(),
    claim_id: room.claim_id,
    team_id: me.body.team.id,
    status: 'processing',
    stage: 'sending',
    charge_key: `as-send:${room.claim_id}:0`,
    credits: options.credits ?? 0,
    item_count: itemIds.length,
    photo_count: 0,
    done_count: 0,
    failed_count: 0,
    claim_key: platformClaim.body.claim_key,
    remote_claim_id: platformClaim.body.claim_id,
    dry_run: false,
    error: null,
    created_by_user_id: 'worker-test',
    created_at: new Date().toISOString(),
    completed_at: null,
    processing_seconds: null,
    lease_until: Date.now() + 60_000,
    resumes: 0,
  };
  expect(await openSubmission(submission, { previous: null, alreadySubmitted: 0, round: 1 })).toBe(true);
  await recordSubmissionItems(submission.id, itemIds);
  const team = await getTeam(submission.team_id);
  if (!team) throw new Error('team not found');
  return { submission, token, itemIds, team };
}

it.concurrent('throws on a transient failure so the queue retries, counts the item failed on its last delivery, and counts a redelivery once', async () => {
  const { submission, token, itemIds } = await pendingSubmission();
  const [radio, clock] = itemIds;

  await fake().failNext('503', { match: `/items/${radio}`, count: 3 });
  await expect(handleSubmissionMessage({ submission_id: submission.id, item_id: radio }, delivery(1))).rejects.toThrow(
    /claims platform unreachable/,
  );
  expect((await getSubmission(submission.id))?.failed_count).toBe(0);

  await fake().failNext('503', { match: `/items/${radio}`, count: 3 });
  await handleSubmissionMessage({ submission_id: submission.id, item_id: radio }, delivery(5));
  expect(await getSubmission(submission.id)).toMatchObject({ failed_count: 1 });
  expect(await submissionItemIds(submission.id, 'failed')).toEqual([radio]);
  expect((await getItem(radio))?.claims_platform_submitted_at).toBeNull();

  await handleSubmissionMessage({ submission_id: submission.id, item_id: clock }, delivery(1));
  await handleSubmissionMessage({ submission_id: submission.id, item_id: clock }, delivery(2));
  const done = await getSubmission(submission.id);
  expect(done).toMatchObject({ status: 'complete', done_count: 1, failed_count: 1 });
  expect(done?.photo_count).toBeGreaterThanOrEqual(1);
  expect((await getItem(clock))?.claims_platform_submitted_at).toEqual(expect.any(String));
  const [remote] = await fake().claims(token);
  expect(remote.items.map((i) => i.external_id)).toEqual([clock]);
});

it.concurrent('counts the deliveries of a message handed over by direct invoke, so the last one still counts the item failed', async () => {
  const { submission, itemIds } = await pendingSubmission();
  const [radio] = itemIds;
  // The queue-outage fallback's record: no queue counts it, and Lambda retries a failed async invoke twice with the same event.
  const direct = {
    messageId: randomUUID(),
    receiptHandle: DIRECT_INVOKE_RECEIPT,
    attributes: { ApproximateReceiveCount: '1' } as never,
  };
  await fake().failNext('503', { match: `/items/${radio}`, count: 9 });
  for (const _ of [1, 2]) {
    await expect(handleSubmissionMessage({ submission_id: submission.id, item_id: radio }, direct)).rejects.toThrow(
      /claims platform unreachable/,
    );
  }
  expect((await getSubmission(submission.id))?.failed_count).toBe(0);
  await handleSubmissionMessage({ submission_id: submission.id, item_id: radio }, direct);
  expect(await getSubmission(submission.id)).toMatchObject({ failed_count: 1 });
  expect(await submissionItemIds(submission.id, 'failed')).toEqual([radio]);
});

it.concurrent('the send sweep leaves an item a live worker is sending to that worker: it is counted once, sent and not refunded', async () => {
  const { submission, itemIds, team } = await pendingSubmission({ credits: 2 });
  const [radio, clock] = itemIds;
  // The send's charge is on the ledger, so a refund of an item's share shows there.
  await chargeSend({ team, user: null, credits: 2, reference: submission.charge_key, description: 'worker test' });
  // The send's lease ran out and it was handed back once already: the sweep now counts what is left failed.
  await setSubmissionFields(submission.id, { resumes: MAX_RESUMES });
  await expireSubmissionLease(submission.id);

  // A worker has taken the radio and its upload is on its way when the sweep runs.
  const upload = `PUT /api/v1/claims/${submission.claim_key}/items/${radio}`;
  await fake().hold(upload, 5000);
  const sending = handleSubmissionMessage({ submission_id: submission.id, item_id: radio }, delivery(1));
  await eventually(async () => (await fake().requests({ match: upload })).length > 0, 10_000, 50);
  await sweepExpiredSends();
  await fake().release(upload);
  await sending;

  const done = await eventually(async () => {
    const s = await getSubmission(submission.id);
    return s?.status === 'complete' ? s : null;
  });
  expect(done).toMatchObject({ done_count: 1, failed_count: 1 });
  expect(await submissionItemIds(submission.id, 'done')).toEqual([radio]);
  expect(await submissionItemIds(submission.id, 'failed')).toEqual([clock]);
  expect((await getItem(radio))?.claims_platform_submitted_at).toEqual(expect.any(String));
  expect((await getItem(clock))?.claims_platform_submitted_at).toBeNull();
  // Only the clock's share came back: the radio went out and stays paid for.
  const [spend] = (await fakeBilling.spends(team.external_id as number)).filter(
    (s) => s.reference === submission.charge_key,
  );
  expect(spend).toMatchObject({ amount: 2, refunded: 1 });
  expect(spend.refunds).toEqual([itemRefundReference(submission.charge_key, clock)]);
});

it.concurrent('an item whose platform failed for a while is sent again after a backoff, not after the queue visibility timeout', async () => {
  const t = await claimsPlatformTeam(['Lamp']);
  const itemId = t.items[0].id;
  // Every attempt of the first two deliveries fails (the client tries each call three times), then the platform is back.
  await fake().failNext('503', { match: `/items/${itemId}`, count: 6 });
  const res = await t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
  expect(res.status).toBe(200);
  await eventually(async () => (await fake().requests({ match: `/items/${itemId}` })).length >= 6, 60_000, 200);
  const recovered = Date.now();
  const done = await eventually(
    async () => {
      const s = await getSubmission(res.body.id);
      return s?.status === 'complete' ? s : null;
    },
    120_000,
    250,
  );
  expect(done).toMatchObject({ done_count: 1, failed_count: 0 });
  // The queue's visibility timeout is 720 s; the backoff after a second failure is 10 s.
  expect(Date.now() - recovered).toBeLessThan(60_000);
});
