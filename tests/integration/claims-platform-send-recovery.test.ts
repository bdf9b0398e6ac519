/**
 * The claims platform send against the embedded stack and the run's fakes: a
 * request ended at its named fault points (recorded, charged, synced; through
 * the real route, as a crash would end it), left to the stack's watchdog (its
 * schedule runs every 15 s in the test stack) once time has made it a dead request (its lease
 * on the send's run ran out, no heartbeat since) or a lost message, and a
 * send written on the table as one stuck for a day, which the watchdog ends.
 */
import { randomUUID } from 'node:crypto';
import { sendKeys } from '../../lib/sends/keys';
import type { FaultPointName } from '../../lib/faults/fault-points';
import { requestStageFields } from '../../lib/orchestrator/request-stage';
import { claimsPlatformSendPipeline, SEND_INTERRUPTED } from '../../lib/sends/claims-platform-run-service';
import { submitToClaimsPlatform } from '../../lib/sends/claims-platform-service';
import { recordSubmissionItems, submissionItemIds } from '../../lib/sends/submission-item-store';
import { getSubmission, openSubmission } from '../../lib/sends/submission-store';
import type { Submission } from '../../lib/sends/submission-record-rules';
import { eventually } from '../support/api';
import { getRow } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { armFaultPoint, faultPointTripped } from '../support/fault-points';
import { claimsPlatform, claimsPlatformTeam, expireSubmissionLease, openSubmissionId } from '../support/sends';
import type { LoginClaimsInput } from '../support/tokens';

jest.setTimeout(120_000);

const ledger = async (member: LoginClaimsInput) =>
  (await fakeBilling.spends(member.current_team_id))
    .filter((s) => s.reference.startsWith('as-send:'))
    .map((s) => [s.reference, s.amount, s.refunded]);

type Team = Awaited<ReturnType<typeof claimsPlatformTeam>>;

/** The send's request through the real route, ended at `point`: the invocation fails (5xx) and the point tripped. */
async function sendEndedAt(t: Team, point: FaultPointName) {
  armFaultPoint(point, t.claimId);
  const res = await t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
  expect(res.status).toBeGreaterThanOrEqual(500);
  expect(faultPointTripped(point, t.claimId)).toBe(true);
  return openSubmissionId(t.claimId);
}

/** A send that reaches `status`, waited for over the watchdog's next tick or two. */
const sendIn = (id: string, status: string) =>
  eventually(
    async () => {
      const s = await getSubmission(id);
      return s?.status === status ? s : null;
    },
    150_000,
    500,
  );

describe.each([
  ['claims-send:recorded', []],
  ['claims-send:charged', [2]],
] as const)('a send whose request is ended at %s', (point, charged) => {
  it.concurrent('stays the open send (a retry answers it and pays nothing), then the watchdog fails and refunds it; the next send pays once', async () => {
    const t = await claimsPlatformTeam();
    const id = await sendEndedAt(t, point);
    // A second click while the dead request's send is open answers that send: no second charge.
    const again = await t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id, status: 'processing' });
    expect((await ledger(t.member)).map(([, amount]) => amount)).toEqual(charged);

    await expireSubmissionLease(id);
    expect(await sendIn(id, 'failed')).toMatchObject({
      error: SEND_INTERRUPTED,
      request_step: null,
      stage_state: 'done',
    });
    // The watchdog cannot tell whether the dead request asked for its charge: it asks for it under the send's reference
    // (the service answers the spend it made, or makes it now) and gives it back whole, once.
    // The owed row goes once the refund is answered, a moment after the send's failure is written.
    await eventually(async () => (await getRow(`SENDREFUND#as-send:${t.claimId}:0`, 'OWED')) === null, 30_000, 200);
    expect(await ledger(t.member)).toEqual([[`as-send:${t.claimId}:0`, 2, 2]]);

    // The next send is charged under the next round's reference and goes out.
    const next = await t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
    expect(next.status).toBe(200);
    await eventually(async () => (await getSubmission(next.body.id))?.status === 'complete', 60_000, 200);
    expect((await ledger(t.member)).at(-1)).toEqual([`as-send:${t.claimId}:0:r2`, 2, 0]);
    const [remote] = await claimsPlatform().claims(t.token);
    expect(remote.items).toHaveLength(2);
  });
});

it.concurrent('a send whose request was ended after the sync (its items stage queued, its message never sent) is requeued by the watchdog and completes, charged once', async () => {
  const t = await claimsPlatformTeam();
  const id = await sendEndedAt(t, 'claims-send:synced');
  expect(await getSubmission(id)).toMatchObject({
    status: 'processing',
    request_step: null,
    stage_name: 'items',
    stage_state: 'queued',
  });

  // What time does to a lost message: the send goes quiet past the watchdog's threshold for a queued stage.
  await expireSubmissionLease(id);
  const done = await sendIn(id, 'complete');
  expect(done).toMatchObject({ done_count: 2, failed_count: 0 });
  expect(await ledger(t.member)).toEqual([[`as-send:${t.claimId}:0`, 2, 0]]);
  const [remote] = await claimsPlatform().claims(t.token);
  expect(remote.items).toHaveLength(2);
});

it.concurrent('a send stuck for a day is ended by the watchdog: what did not go out is counted failed, and it leaves the open runs', async () => {
  const t = await claimsPlatformTeam();
  const itemIds = t.items.map((i: { id: string }) => i.id);
  const longAgo = new Date(Date.now() - 2 * 86_400_000);
  const submission: Submission = {
    // Its run in the items stage, two units sent long ago and never counted.
    ...requestStageFields(claimsPlatformSendPipeline, randomUUID(), 60_000, longAgo),
    stage_name: 'items',
    stage_state: 'fanout',
    stage_runner: null,
    stage_lease_until: null,
    fanout_total: 2,
    fanout_next: 2,
    id: randomUUID(),
    claim_id: t.claimId,
    team_id: t.identity.team.id,
    status: 'processing',
    request_step: null,
    charge_key: `as-send:${t.claimId}:0`,
    credits: 0,
    item_count: itemIds.length,
    photo_count: 0,
    done_count: 0,
    failed_count: 0,
    claim_key: 'LKQ-STALLED',
    remote_claim_id: null,
    dry_run: false,
    error: null,
    created_by_user_id: t.identity.user.id,
    created_at: longAgo.toISOString(),
    completed_at: null,
    processing_seconds: null,
  };
  expect(await openSubmission(submission, { previous: null, alreadySubmitted: 0, round: 1 })).toBe(true);
  await recordSubmissionItems(submission.id, itemIds);

  expect(await sendIn(submission.id, 'complete')).toMatchObject({ failed_count: 2, stage_state: 'done' });
  expect((await submissionItemIds(submission.id, 'failed')).sort()).toEqual([...itemIds].sort());
  // Off the open-runs index: the watchdog does not look at it again.
  const row = await getRow(sendKeys.submission(submission.id).pk, sendKeys.submission(submission.id).sk);
  expect(row?.activepk).toBeUndefined();
});

it('a refusal of the charge (402) leaves no send and no item rows; the next send asks under the next round', async () => {
  const t = await claimsPlatformTeam();
  await fakeBilling.setBalance(t.member.current_team_id, 1);
  await expect(submitToClaimsPlatform(t.identity, t.claimId, {})).rejects.toMatchObject({
    code: 'insufficient_credits',
  });
  const key = sendKeys.claimSend(t.claimId);
  const row = await getRow(key.pk, key.sk);
  expect(row?.submission_id).toBeUndefined();
  // The billing service remembers a refusal under its reference: that round is spent.
  expect(row?.round_0).toBe(1);
  await fakeBilling.setBalance(t.member.current_team_id, 10);
  const sent = await submitToClaimsPlatform(t.identity, t.claimId, {});
  expect(sent.status).toBe('processing');
  await eventually(async () => (await getSubmission(sent.id))?.status === 'complete', 60_000, 200);
  expect(await ledger(t.member)).toEqual([[`as-send:${t.claimId}:0:r2`, 2, 0]]);
});
