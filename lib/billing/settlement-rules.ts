/**
 * What a run owes the billing service back (spec: Processing rules 5 and 6;
 * States and transitions, the refund rows). Pure: the store records what these
 * return (settlement-store.ts), the service settles it (settlement-service.ts).
 *
 * - A failed run owes its whole spend back (reference job:<id>:<round>).
 * - A completed run owes back what it spent up front and did not bill (a
 *   failed AI request is never billed), under its own reference
 *   job:<id>:<round>:adjust.
 * - A round charged and never started owes its whole spend back once its
 *   lease has run out (unstartedRoundLeaseMs): the request that charged it
 *   died between the spend and the start. Until then a start may still use it.
 *   So does a spend asked for whose answer was never recorded (the request
 *   died during the call or right after it): it may have been made.
 * - A new charge takes the round after both the last charged and the last
 *   refused one (nextChargeRound): a refused reference is never asked again.
 * - A job waiting for confirmation is cancelled only while none of its
 *   billing is open (cancelBlock): no spend in flight, nothing owed, no
 *   charged round that was not given back.
 */
import { type Settings, settings } from '../config';
import type { Job, OwedRefund } from '../jobs/job-record-rules';
import { jobChargeReference, unbilledRefundReference } from './ledger-rules';

type BillingState = Pick<
  Job,
  'id' | 'billing_charged' | 'billing_refunded' | 'billing_rounds' | 'billing_amount' | 'refunds_owed'
>;

/**
 * How long a charged round may wait for its run to start
 * (UNSTARTED_ROUND_LEASE_SECONDS, 60 s by default). The request that charges
 * a round starts its run in the same HTTP function, which runs at most 29 s
 * (serverless.yml); twice that leaves room for a slow start write, so a round
 * older than this with no run was left by a request that died.
 */
export const unstartedRoundLeaseMs = (config: Pick<Settings, 'UNSTARTED_ROUND_LEASE_SECONDS'> = settings()) =>
  config.UNSTARTED_ROUND_LEASE_SECONDS * 1000;

type RoundState = Pick<
  Job,
  | 'billing_charged'
  | 'billing_refunded'
  | 'billing_round_started'
  | 'billing_round_abandoned'
  | 'billing_txn_id'
  | 'billing_unconfirmed'
>;

const owes = (job: Pick<Job, 'refunds_owed'>, round: number) => (job.refunds_owed ?? []).some((o) => o.round === round);

/** A failed run: the whole spend of its round, if it was charged and not given back. */
export function wholeRefund(job: BillingState, round = job.billing_rounds): OwedRefund | null {
  if (!job.billing_charged || job.billing_refunded || !(round > 0) || round !== job.billing_rounds) return null;
  const reference = jobChargeReference(job.id, round);
  return { round, spend_reference: reference, reference, amount: null };
}

/**
 * A completed run: what it spent up front beyond what it billed. Nothing when
 * the round was not charged, was already given back, or already owes a refund
 * (a round failed earlier and then ran again uncharged).
 */
export function unbilledRefund(
  job: BillingState,
  billedCredits: number,
  round = job.billing_rounds,
): OwedRefund | null {
  if (!job.billing_charged || job.billing_refunded || !(round > 0) || round !== job.billing_rounds || owes(job, round))
    return null;
  const unbilled = Math.ceil(job.billing_amount) - Math.max(0, Math.ceil(billedCredits));
  if (!(unbilled > 0)) return null;
  return {
    round,
    spend_reference: jobChargeReference(job.id, round),
    reference: unbilledRefundReference(job.id, round),
    amount: unbilled,
  };
}

/**
 * A round another start charged after the caller read the job (at
 * `seenRounds`), not given back, and that no run has started on: that charge
 * stands for this start too (never two live charges for one run). A round a
 * run has started on was used: this start charges one of its own, which it
 * gives back if it cannot start. A round charged before the started flag
 * existed may still be one whose start is on its way.
 */
export const racingChargeRound = (job: RoundState & Pick<Job, 'billing_rounds'>, seenRounds: number) =>
  (job.billing_rounds ?? 0) > seenRounds &&
  Boolean(job.billing_charged) &&
  !job.billing_refunded &&
  !job.billing_round_abandoned &&
  job.billing_round_started !== true &&
  Boolean(job.billing_txn_id || job.billing_unconfirmed);

/**
 * The round is charged (or its spend's answer was lost), not given back, not
 * abandoned, and no run has started on it: a start may still use it.
 */
export const unstartedRound = (job: RoundState) =>
  Boolean(job.billing_charged) &&
  !job.billing_refunded &&
  job.billing_round_started === false &&
  !job.billing_round_abandoned &&
  Boolean(job.billing_txn_id || job.billing_unconfirmed);

/**
 * A round charged and never started whose lease has run out: its whole spend,
 * owed back. Null while a start may still use it (or when it started, was
 * given back or is not charged). A round charged before charge times were
 * recorded counts from the job's last write.
 */
export function abandonedRoundRefund(
  job: BillingState & RoundState & Pick<Job, 'billing_charged_at' | 'updated_at'>,
  now = Date.now(),
  leaseMs = unstartedRoundLeaseMs(),
): OwedRefund | null {
  if (!unstartedRound(job)) return null;
  const chargedAt = Date.parse(job.billing_charged_at ?? job.updated_at);
  if (!(now - chargedAt >= leaseMs)) return null;
  return wholeRefund(job);
}

type RoundCount = Pick<Job, 'billing_rounds' | 'billing_refused_round'>;

/**
 * The round a new charge asks for: the one after both the last charged round and the last refused one. The
 * billing service remembers a refusal under its reference and answers it again however the balance moves, so a
 * refused round is never asked again (rounds may skip: a refused round has no spend).
 */
export const nextChargeRound = (job: Partial<RoundCount>) =>
  Math.max(job.billing_rounds ?? 0, job.billing_refused_round ?? 0) + 1;

type SpendRequest = RoundCount &
  Pick<Job, 'billing_spend_round' | 'billing_spend_amount' | 'billing_charged_at' | 'updated_at'>;

/** A spend was asked for and its answer is not recorded yet: its round is the next one (nextChargeRound). */
export const spendInFlight = (job: Partial<RoundCount> & Pick<Job, 'billing_spend_round'>) =>
  Boolean(job.billing_spend_round) && job.billing_spend_round === nextChargeRound(job);

/**
 * A spend asked for whose answer was never recorded, once its round's lease
 * has run out (the request died during the call or before its record): the
 * round and credits it may have taken, the round it was asked after
 * (`previous`, billing_rounds), and their whole refund. Null while its
 * request may still record it.
 */
export function unrecordedSpend(
  job: Pick<Job, 'id'> & SpendRequest,
  now = Date.now(),
  leaseMs = unstartedRoundLeaseMs(),
): { round: number; previous: number; amount: number; refund: OwedRefund } | null {
  if (!spendInFlight(job)) return null;
  const askedAt = Date.parse(job.billing_charged_at ?? job.updated_at);
  if (!(now - askedAt >= leaseMs)) return null;
  const round = job.billing_spend_round as number;
  const reference = jobChargeReference(job.id, round);
  return {
    round,
    previous: job.billing_rounds ?? 0,
    amount: job.billing_spend_amount ?? 0,
    refund: { round, spend_reference: reference, reference, amount: null },
  };
}

/** The job waits on a round: one charged and not started yet, or a spend asked for and not recorded yet. */
export const awaitsRound = (job: RoundState & Partial<RoundCount> & Pick<Job, 'billing_spend_round'>) =>
  unstartedRound(job) || spendInFlight(job);

/** The job owes the billing service something: refunds, or a spend whose answer was lost. */
export const owesBilling = (job: Pick<Job, 'refunds_owed' | 'billing_unconfirmed'>) =>
  Boolean(job.billing_unconfirmed) || (job.refunds_owed ?? []).length > 0;

/**
 * What keeps a job waiting for confirmation from being cancelled (spec: the cancel row, before any spend), or null
 * when none of its billing is open: a spend asked for and its answer not recorded (the Process click is waiting on
 * it, or died there and the sweep has not given it back yet), billing owed (a refund, a spend to confirm), or a
 * charged round not given back (a start may still use it). A round given back whole, or abandoned with nothing
 * left owed, holds nothing: the job is cancelled like one never charged. The cancel's delete is conditional on the
 * same (charge-store.ts, billingClosed), so a spend asked for after the cancel's read still keeps the job.
 */
export function cancelBlock(
  job: Partial<
    Pick<
      Job,
      | 'billing_spend_round'
      | 'refunds_owed'
      | 'billing_unconfirmed'
      | 'billing_charged'
      | 'billing_refunded'
      | 'billing_round_abandoned'
    >
  >,
): 'spend_in_flight' | 'billing_owed' | 'round_charged' | null {
  if (job.billing_spend_round !== null && job.billing_spend_round !== undefined) return 'spend_in_flight';
  if (owesBilling(job)) return 'billing_owed';
  if (job.billing_charged && !job.billing_refunded && !job.billing_round_abandoned) return 'round_charged';
  return null;
}
