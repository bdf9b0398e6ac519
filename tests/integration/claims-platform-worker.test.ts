/**
 * The submissions queue worker (lib/sends/claims-platform-worker-service.ts)
 * called in-process against the embedded stack and the run's fake claims
 * platform, for the delivery cases a queue produces only slowly: a transient
 * failure is retried by the queue (the handler throws), the last delivery
 * counts the item failed (also when the message came by direct invoke while
 * the queue was down), and a message delivered twice is counted once.
 */
import { randomUUID } from 'node:crypto';
import { ClaimsPlatformClient } from '../../lib/integrations/claims-platform';
import { getItem } from '../../lib/inventory/item-store';
import { DIRECT_INVOKE_RECEIPT } from '../../lib/queue/dispatch';
import { handleSubmissionMessage } from '../../lib/sends/claims-platform-worker-service';
import { recordSubmissionItems, submissionItemIds } from '../../lib/sends/submission-item-store';
import { getSubmission, openSubmission, type Submission } from '../../lib/sends/submission-store';
import { Client } from '../support/api';
import { fakeBilling } from '../support/fake-billing';
import { fakeClaimsPlatform } from '../support/fake-claims-platform';
import { jobWithItems } from '../support/inventory';
import { newTeamMember } from '../support/tokens';
import { newRoom } from '../support/uploads';

jest.setTimeout(120_000);

const fake = () => fakeClaimsPlatform(process.env.TEST_FAKE_CLAIMS_PLATFORM_URL as string);
const delivery = (n: number) => ({ attributes: { ApproximateReceiveCount: String(n) } as never });

/** A team whose claim and room are on the fake platform, and a Submission of its two items in processing. */
async function pendingSubmission(): Promise<{ submission: Submission; token: string; itemIds: string[] }> {
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
    credits: 0,
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
  return { submission, token, itemIds };
}

it('throws on a transient failure so the queue retries, counts the item failed on its last delivery, and counts a redelivery once', async () => {
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

it('counts the deliveries of a message handed over by direct invoke, so the last one still counts the item failed', async () => {
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
