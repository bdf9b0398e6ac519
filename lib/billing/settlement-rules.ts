/**
 * What a run owes the billing service back (spec: Processing rules 5 and 6;
 * States and transitions, the refund rows). Pure: the store records what these
 * return (settlement-store.ts), the service settles it (settlement-service.ts).
 *
 * - A failed run owes its whole spend back (reference job:<id>:<round>).
 * - A completed run owes back what it spent up front and did not bill (a
 *   failed AI request is never billed), under its own reference
 *   job:<id>:<round>:adjust.
 */
import type { Job, OwedRefund } from '../jobs/job-store';
import { jobChargeReference, unbilledRefundReference } from './ledger-rules';

type BillingState = Pick<
  Job,
  'id' | 'billing_charged' | 'billing_refunded' | 'billing_rounds' | 'billing_amount' | 'refunds_owed'
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

/** The job owes the billing service something: refunds, or a spend whose answer was lost. */
export const owesBilling = (job: Pick<Job, 'refunds_owed' | 'billing_unconfirmed'>) =>
  Boolean(job.billing_unconfirmed) || (job.refunds_owed ?? []).length > 0;
