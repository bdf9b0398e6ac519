/**
 * A job's charge rounds and billed credits, as stored on the job row
 * (billing_charged, billing_txn_id, billing_amount, billing_rounds,
 * billing_refunded, billing_unconfirmed; billed_cost_usd, billed_blocks,
 * billed_minutes, billing_finalized_at, pass_billed). Each write is
 * conditional, so a racing confirm or a repeated completion records once.
 */
import { updateJob } from '../jobs/job-store';
import type { Job } from '../jobs/job-record-rules';
import type { JobCharge } from './credit-rules';
import { pendingEntry } from './settlement-store';

/** The condition that the job's charge round is still `previous` (a new job has none recorded). */
const roundIs = (previous: number) => ({
  condition:
    previous === 0 ? 'attribute_not_exists(billing_rounds) OR billing_rounds = :prev' : 'billing_rounds = :prev',
  values: { ':prev': previous } as Record<string, unknown>,
});

/**
 * Records that the spend of `round` is about to be asked for (its credits, the
 * time, the job listed for the billing sweep), conditional on the round the
 * charge was computed from (`previous`) and on `round` not having been refused
 * meanwhile (a refused reference is never asked again). A request that dies
 * during the call or before its answer is recorded leaves this behind, and the
 * sweep gives back what the spend may have taken once the round's lease has
 * run out. Null when the job is gone (a Cancel discarded it: nothing is spent)
 * or another round was recorded or refused meanwhile. Once written, it keeps a
 * Cancel from discarding the job until the spend's answer is recorded or
 * cleared (billingClosed).
 */
export async function recordSpendRequest(
  jobId: string,
  spend: { previous: number; round: number; amount: number },
  now = new Date(),
): Promise<Job | null> {
  const at = now.toISOString();
  const round = roundIs(spend.previous);
  return updateJob(jobId, ['billing'], {
    set: {
      billing_spend_round: spend.round,
      billing_spend_amount: spend.amount,
      billing_charged_at: at,
      ...pendingEntry(jobId, at),
    },
    add: { billing_version: 1 },
    condition: `(${round.condition}) AND (attribute_not_exists(billing_refused_round) OR billing_refused_round < :askedRound)`,
    values: { ...round.values, ':askedRound': spend.round },
  });
}

/** Clears the request of a spend that cannot have charged (a call that never reached the service). */
export async function clearSpendRequest(jobId: string, round: number): Promise<void> {
  await updateJob(jobId, ['billing'], {
    set: { billing_spend_round: null, billing_spend_amount: null },
    condition: 'billing_spend_round = :round',
    values: { ':round': round },
  });
}

/**
 * Clears the request of a spend the billing service flatly refused (402) and
 * records its round as refused, in one write: the service remembers a refusal
 * under its reference, so the next charge asks under the round after it
 * (nextChargeRound). Conditional on the request still being this round's; a
 * write that loses finds it taken over (a racing click refused under the same
 * reference recorded it, or the sweep gave the request up and took its round).
 */
export async function recordRefusedSpend(jobId: string, round: number): Promise<void> {
  await updateJob(jobId, ['billing'], {
    set: { billing_spend_round: null, billing_spend_amount: null, billing_refused_round: round },
    add: { billing_version: 1 },
    condition: 'billing_spend_round = :round',
    values: { ':round': round },
  });
}

/**
 * Records a round's charge, conditional on the round the charge was computed
 * from (`previous`), so two racing confirms record once. The round is listed
 * for the billing sweep from its charge time, so a round whose start never
 * comes is given back once its lease runs out; a null transaction id records
 * the charge as unconfirmed, which the sweep confirms. Null when the job is
 * gone or another round was recorded meanwhile.
 */
export async function recordChargeRound(
  jobId: string,
  charge: { previous: number; round: number; amount: number; transactionId: string | null },
  now = new Date(),
): Promise<Job | null> {
  const { previous, round, amount, transactionId } = charge;
  const at = now.toISOString();
  const condition = roundIs(previous);
  return updateJob(jobId, ['billing'], {
    set: {
      billing_charged: true,
      billing_txn_id: transactionId,
      billing_amount: amount,
      billing_rounds: round,
      billing_refunded: false,
      billing_unconfirmed: transactionId === null,
      billing_round_started: false,
      billing_round_abandoned: false,
      billing_charged_at: at,
      billing_spend_round: null,
      billing_spend_amount: null,
      ...pendingEntry(jobId, at),
    },
    add: { billing_version: 1 },
    condition: condition.condition,
    values: condition.values,
  });
}

/**
 * What a start on a charged round writes and requires: the round marked
 * started, in a write that holds only while the round is still the job's, not
 * given back and not abandoned by the billing sweep (settlement-store.ts,
 * abandonRound). A start and the sweep's abandonment race on the job row and
 * exactly one wins. An uncharged start (fail open, billing off) writes and
 * requires nothing.
 */
export function chargedRoundStart(round: number | null): {
  set: Partial<Job>;
  guards: { condition: string; values: Record<string, unknown> }[];
} {
  if (round === null) return { set: {}, guards: [] };
  return {
    set: { billing_round_started: true },
    guards: [
      {
        condition:
          'billing_rounds = :startRound AND billing_refunded = :startFalse AND ' +
          '(attribute_not_exists(billing_round_abandoned) OR billing_round_abandoned = :startFalse)',
        values: { ':startRound': round, ':startFalse': false },
      },
    ],
  };
}

/**
 * The condition that none of the job's billing is open, as cancelBlock
 * (settlement-rules.ts) reads it: no spend asked for and unrecorded, no spend
 * to confirm, no refund owed, and its round (if charged) given back or
 * abandoned. A Cancel's delete holds only with it, so a spend asked for after
 * the Cancel read the job keeps the job, and a Cancel that won first leaves no
 * job for the spend's request (recordSpendRequest), which then spends nothing.
 */
export function billingClosed(): { condition: string; values: Record<string, unknown> } {
  return {
    condition:
      '(attribute_not_exists(billing_spend_round) OR billing_spend_round = :closedNull) AND ' +
      '(attribute_not_exists(billing_unconfirmed) OR billing_unconfirmed <> :closedTrue) AND ' +
      '(attribute_not_exists(refunds_owed) OR attribute_type(refunds_owed, :closedNullType) OR ' +
      'size(refunds_owed) = :closedZero) AND ' +
      '(attribute_not_exists(billing_charged) OR billing_charged <> :closedTrue OR ' +
      'billing_refunded = :closedTrue OR billing_round_abandoned = :closedTrue)',
    values: { ':closedNull': null, ':closedTrue': true, ':closedNullType': 'NULL', ':closedZero': 0 },
  };
}

/** What a job's completing write records for billing: its billed credits, once (billing_finalized_at). */
export function completionBilling(charge: JobCharge, now = new Date()) {
  const credits = Math.max(0, Math.ceil(charge.credits));
  return {
    credits,
    set: {
      billed_cost_usd: credits,
      billed_blocks: charge.blocks,
      billed_minutes: charge.minutes,
      billing_finalized_at: now.toISOString(),
    },
    add: {},
    condition: 'attribute_not_exists(billing_finalized_at) OR billing_finalized_at = :null',
    values: { ':null': null } as Record<string, unknown>,
  };
}

/**
 * What a follow-up pass's completing write records (read the rest: one credit
 * per group re-read and answered): its credits added to the job's billed
 * credits, once per pass (pass_billed).
 */
export function passCompletionBilling(charge: JobCharge, pass: string) {
  const credits = Math.max(0, Math.ceil(charge.credits));
  return {
    credits,
    set: { pass_billed: pass },
    add: { billed_cost_usd: credits, billed_blocks: charge.blocks },
    condition: 'attribute_not_exists(pass_billed) OR pass_billed <> :pass',
    values: { ':pass': pass } as Record<string, unknown>,
  };
}

/** Records the billed credits of a completion on its own; null when already finalized (or the job is gone). */
export async function recordCompletionBilling(
  jobId: string,
  billing: ReturnType<typeof completionBilling>,
  now = new Date(),
): Promise<Job | null> {
  return updateJob(jobId, ['billing'], { set: billing.set, condition: billing.condition, values: billing.values }, now);
}
