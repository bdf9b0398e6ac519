/**
 * The ledger fault matrix's send paths (tests/support/fault-matrix.ts has the
 * faults and the check): the claims platform send and the estimation send,
 * each as the claim's first send (create) and as a later one (append), through
 * the real routes. A claims platform send whose request died is failed and
 * given back by the watchdog once its lease has run out, and the
 * adjuster sends again; an estimation send whose request died is finished by
 * the watchdog's estimation sweep under the same reference. A refused send is
 * given back (the billing sweep settles a refund that was owed) and sent
 * again. A send whose charge's answer was lost goes out on it; billing down at
 * the charge lets the send go out uncharged (the spec's fail-open).
 */
import { SEND_CONTINUES } from '../../lib/sends/estimation-service';
import { getEstimationSend } from '../../lib/sends/estimation-store';
import { getSubmission } from '../../lib/sends/submission-store';
import { eventually } from './api';
import { getRow } from './aws';
import { fakeBilling } from './fake-billing';
import {
  BOUNDARY,
  billingFaultMet,
  type Fault,
  failsTheWork,
  injectBillingFault,
  type MatrixPath,
  pointOf,
  SWEEP_WAIT_MS,
} from './fault-matrix';
import { armFaultPoint, faultPointTripped } from './fault-points';
import {
  addItem,
  claimsPlatform,
  claimsPlatformTeam,
  expireEstimationSendLease,
  expireSubmissionLease,
  fake as fakeEstimation,
  openSubmissionId,
  sendTeam,
} from './sends';

/** The owed-refund row of a send's reference is written (refunds down), then gone once the billing sweep settled it. */
async function owedRefundSettled(teamId: number, reference: string) {
  const owed = () => getRow(`SENDREFUND#${reference}`, 'OWED');
  await eventually(owed, 30_000);
  // Asked for while down (by the request, or else by the billing sweep's next tick), before billing comes back.
  await eventually(() => billingFaultMet(teamId, 'billing down during the refund'), SWEEP_WAIT_MS, 1000);
  await fakeBilling.recover(teamId);
  await eventually(async () => (await owed()) === null, SWEEP_WAIT_MS, 1000);
}

// --- the claims platform send ------------------------------------------------------------------

const claimsSendEnds = (id: string, status: 'complete' | 'failed', timeoutMs = 60_000) =>
  eventually(
    async () => {
      const s = await getSubmission(id);
      return s?.status === status ? s : null;
    },
    timeoutMs,
    500,
  );

async function claimsCell(kind: 'create' | 'append', fault: Fault, armed: boolean) {
  const t = await claimsPlatformTeam(['Globe', 'Atlas'], 100);
  const teamId = t.member.current_team_id as number;
  const send = () => t.client.post(`/api/claims/${t.claimId}/submit-to-claims-platform`, {});
  let billed = 0;
  if (kind === 'append') {
    const first = await send();
    expect(first.status).toBe(200);
    await claimsSendEnds(first.body.id, 'complete');
    billed = 2;
    await addItem(t, 'Telescope');
  }
  const items = kind === 'append' ? 1 : 2;
  // A lost answer stays lost until the send's record is read below: a request slower than its time hands the send to
  // a worker, whose own ask of the same charge would otherwise be answered and confirm it.
  if (armed) await injectBillingFault(teamId, fault, { untilRecovered: true });
  if (armed && BOUNDARY[fault]) {
    const point = pointOf('claims-send', fault);
    armFaultPoint(point, t.claimId);
    expect((await send()).status).toBeGreaterThanOrEqual(500);
    expect(faultPointTripped(point, t.claimId)).toBe(true);
    // The request's lease runs out; the watchdog, on its schedule, fails the send and gives back
    // whatever it may have taken.
    const dead = await openSubmissionId(t.claimId);
    await expireSubmissionLease(dead);
    await claimsSendEnds(dead, 'failed', SWEEP_WAIT_MS);
  } else if (armed && failsTheWork(fault)) {
    // The platform refuses the claim sync (every attempt): 502, the charge given back.
    await claimsPlatform().failNext('503', { match: t.token, count: 3 });
    expect((await send()).status).toBe(502);
    const refused = await getSubmission(await openSubmissionId(t.claimId));
    expect(refused?.status).toBe('failed');
    if (fault === 'billing down during the refund') await owedRefundSettled(teamId, refused?.charge_key as string);
  }
  // The adjuster sends (again).
  const sent = await send();
  expect(sent.status).toBe(200);
  const done = await claimsSendEnds(sent.body.id, 'complete');
  expect(done).toMatchObject({ done_count: items, failed_count: 0 });
  // The service's lost-answer handling was reached (the send keeps the spend to confirm), or, disarmed, not.
  if (fault === "the charge's answer is lost") expect(Boolean(done.charge_spend)).toBe(armed);
  if (fault === "the charge's answer is lost" && armed) await fakeBilling.recover(teamId);
  if (fault === "the charge's answer is lost" && armed) await fakeBilling.lateApplied(teamId);
  if (fault === 'billing down at the charge' && armed) await fakeBilling.recover(teamId);
  if (!BOUNDARY[fault] && fault !== 'the work fails') expect(await billingFaultMet(teamId, fault)).toBe(armed);
  // No item lost or duplicated on the platform; the control failed no send.
  const [remote] = await claimsPlatform().claims(t.token);
  expect(remote.items).toHaveLength(kind === 'append' ? 3 : 2);
  // Billing down at the charge: the send goes out uncharged (fail-open).
  billed += armed && fault === 'billing down at the charge' ? 0 : items;
  return { teamId, prefix: `as-send:${t.claimId}`, billed };
}

export const claimsPlatformPath = (kind: 'create' | 'append'): MatrixPath => ({
  name: `claims platform send (${kind})`,
  run: (fault, armed) => claimsCell(kind, fault, armed),
});

// --- the estimation platform send --------------------------------------------------------------

async function estimationCell(kind: 'create' | 'append', fault: Fault, armed: boolean) {
  const t = await sendTeam([['Sofa'], ['Lamp']], 100);
  const teamId = t.member.current_team_id as number;
  const send = () => t.client.post(`/api/claims/${t.claimId}/submit-to-estimation-platform`, {});
  let billed = 0;
  if (kind === 'append') {
    expect((await send()).status).toBe(200);
    billed = 2;
    await addItem(t, 'Rug');
  }
  const items = kind === 'append' ? 1 : 2;
  // A lost answer stays lost until the send's record is read below (as for the claims platform send).
  if (armed) await injectBillingFault(teamId, fault, { untilRecovered: true });
  let sentByRequest = true;
  if (armed && BOUNDARY[fault]) {
    const point = pointOf('estimation-send', fault);
    armFaultPoint(point, t.claimId);
    expect((await send()).status).toBeGreaterThanOrEqual(500);
    expect(faultPointTripped(point, t.claimId)).toBe(true);
    // The request's lease runs out; the watchdog, on its schedule, has a worker carry the send on under the same
    // reference (no second charge).
    await expireEstimationSendLease(t.claimId);
    await eventually(async () => (await getEstimationSend(t.claimId))?.status === 'done', SWEEP_WAIT_MS, 1000);
    sentByRequest = false;
  } else if (armed && failsTheWork(fault)) {
    await fakeEstimation().failNext('422', { key: t.key, detail: 'items.0.title: too long for the platform' });
    expect((await send()).status).toBe(422);
    if (fault === 'billing down during the refund') {
      const refused = await getEstimationSend(t.claimId);
      await owedRefundSettled(teamId, refused?.reference as string);
    }
  }
  if (sentByRequest) {
    // The adjuster sends (again). A send slower than its request (a lost charge answer takes the billing client's
    // 15 s; a busy machine adds more) is handed to the workers and answered 503: then a worker ends it.
    const sent = await send();
    if (sent.status === 503) {
      expect(sent.body.detail).toBe(SEND_CONTINUES);
      await eventually(async () => (await getEstimationSend(t.claimId))?.status === 'done', SWEEP_WAIT_MS, 1000);
    } else {
      expect({ status: sent.status, body: sent.body }).toMatchObject({ status: 200, body: { items_sent: items } });
    }
  }
  const record = await getEstimationSend(t.claimId);
  expect(record?.state).toBe('done');
  // The service's lost-answer handling was reached (the send keeps the spend to confirm), or, disarmed, not.
  if (fault === "the charge's answer is lost") expect(Boolean(record?.charge_unconfirmed)).toBe(armed);
  if (fault === "the charge's answer is lost" && armed) await fakeBilling.recover(teamId);
  if (fault === "the charge's answer is lost" && armed) await fakeBilling.lateApplied(teamId);
  if (fault === 'billing down at the charge' && armed) await fakeBilling.recover(teamId);
  if (!BOUNDARY[fault] && fault !== 'the work fails') expect(await billingFaultMet(teamId, fault)).toBe(armed);
  // No item lost or duplicated on the platform.
  const remote = await fakeEstimation().claims(t.key);
  expect(remote.flatMap((c) => c.items)).toHaveLength(kind === 'append' ? 3 : 2);
  billed += armed && fault === 'billing down at the charge' ? 0 : items;
  return { teamId, prefix: 'ce-', billed };
}

export const estimationPath = (kind: 'create' | 'append'): MatrixPath => ({
  name: `estimation platform send (${kind})`,
  run: (fault, armed) => estimationCell(kind, fault, armed),
});
