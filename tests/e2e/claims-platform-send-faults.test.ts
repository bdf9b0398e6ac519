/**
 * The claims platform send's request ended at each of its named fault points
 * (lib/faults) through the real route, as a crash or a timeout of the
 * function would end it, then left to the service: the watchdog (the stack's
 * own schedule) settles the send's run once time has made it a dead request,
 * and the adjuster sends again. Each point also runs once disarmed, which must
 * show that nothing was cut off, so no case passes without its fault.
 * Last, a charge whose answer was lost (applied by the billing service only
 * after the request gave up on it) on a send the platform then refuses.
 */
import { SEND_INTERRUPTED } from '../../lib/sends/claims-platform-run-service';
import { getSubmission } from '../../lib/sends/submission-store';
import type { FaultPointName } from '../../lib/faults/fault-points';
import { SPEND_PATH } from '../../lib/integrations/billing-contract';
import { eventually } from '../support/api';
import { armFaultPoint, faultPointTripped } from '../support/fault-points';
import { fakeBilling } from '../support/fake-billing';
import { claimsPlatform, claimsPlatformTeam, expireSubmissionLease, openSubmissionId } from '../support/sends';

jest.setTimeout(240_000);

const POINTS: { point: FaultPointName; after: 'failed' | 'complete' }[] = [
  // Ended before or right after the spend: the watchdog fails the send and gives back what it took.
  { point: 'claims-send:recorded', after: 'failed' },
  { point: 'claims-send:spent', after: 'failed' },
  { point: 'claims-send:charged', after: 'failed' },
  // Ended after the claim and rooms were synced and the items stage queued: the watchdog sends its lost message.
  { point: 'claims-send:synced', after: 'complete' },
];

const outcomes: string[] = [];
afterAll(() => console.log(['Claims platform send, request ended at each fault point:', ...outcomes].join('\n')));

// All at once (armed first: jest runs five at a time): the armed cases wait for the same tick of the watchdog.
const CASES = [true, false].flatMap((armed) => POINTS.map(({ point, after }) => ({ point, after, armed })));

it.concurrent.each(CASES)(
  '$point, armed $armed: the send ends settled and the ledger equals the items sent',
  async ({ point, after, armed }) => {
    const t = await claimsPlatformTeam(['Globe', 'Atlas'], 100);
    const teamId = t.member.current_team_id as number;
    if (armed) armFaultPoint(point, t.claimId);
    const first = await t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
    const id = await openSubmissionId(t.claimId);
    if (!armed) {
      // The control: nothing was cut off (its items may have gone out already).
      expect(first.status).toBe(200);
      expect((await getSubmission(id))?.status).toMatch(/^(processing|complete)$/);
    } else {
      expect(first.status).toBeGreaterThanOrEqual(500);
      expect(faultPointTripped(point, t.claimId)).toBe(true);
      const dead = await getSubmission(id);
      expect(dead).toMatchObject({ status: 'processing' });
      // The request's lease runs out (60 s) and the send goes quiet; the watchdog, on its own schedule, settles it.
      await expireSubmissionLease(id);
      const settled = await eventually(
        async () => {
          const s = await getSubmission(id);
          return s?.status === after ? s : null;
        },
        150_000,
        1000,
      );
      if (after === 'failed') expect(settled).toMatchObject({ error: SEND_INTERRUPTED, request_step: null });
    }
    if (!armed || after === 'complete')
      await eventually(async () => (await getSubmission(id))?.status === 'complete', 60_000, 250);
    else {
      // The adjuster sends again: a new reference, charged once.
      const again = await t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
      expect(again.status).toBe(200);
      await eventually(async () => (await getSubmission(again.body.id))?.status === 'complete', 60_000, 250);
    }
    const [remote] = await claimsPlatform().claims(t.token);
    expect(remote.items).toHaveLength(2);
    // Every refund asked for has landed (the billing sweep asks again for any the service did not answer).
    const spends = await eventually(async () => {
      const all = (await fakeBilling.spends(teamId)).filter((s) => s.reference.startsWith(`as-send:${t.claimId}`));
      return all.every((s) => s.refunded === 0 || s.refunded === s.amount) ? all : null;
    }, 30_000);
    expect(spends.reduce((net, s) => net + s.amount - s.refunded, 0)).toBe(2);
    outcomes.push(
      `${point} ${armed ? 'armed' : 'disarmed'}: ${armed ? `ended, then ${after}` : 'not cut off'}; ledger as expected`,
    );
  },
);

it("a send whose charge's answer was lost, then refused by the platform, confirms the charge before giving it back", async () => {
  const t = await claimsPlatformTeam(['Globe', 'Atlas'], 100);
  const teamId = t.member.current_team_id as number;
  // Every attempt of the charge is held unanswered; the spend lands only long after the request gave up on it and
  // the send failed, when a refund asked at once would have met a 404 for a spend not there yet.
  await fakeBilling.failNext('late', 3, teamId, SPEND_PATH, { delayMs: 25_000 });
  await claimsPlatform().failNext('503', { match: t.token, count: 3 });
  const res = await t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
  expect(res.status).toBe(502);
  const id = await openSubmissionId(t.claimId);
  expect(await getSubmission(id)).toMatchObject({ status: 'failed' });
  await fakeBilling.lateApplied(teamId);
  const spends = await eventually(async () => {
    const all = (await fakeBilling.spends(teamId)).filter((s) => s.reference.startsWith(`as-send:${t.claimId}`));
    return all.length > 0 && all.every((s) => s.refunded === s.amount) ? all : null;
  }, 30_000);
  // Charged once (the late spend and the confirming ask share the reference) and given back whole.
  expect(spends.map((s) => [s.amount, s.refunded])).toEqual([[2, 2]]);
});
