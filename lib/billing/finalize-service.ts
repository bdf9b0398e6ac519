/**
 * Finalize for jobs (spec: Limits > Credit prices and charging, rule 3;
 * Processing rules 5): the billed credits recorded once per job success and
 * added to the claim's spend. The credits are computed by the caller at
 * finalize time from the then-current prices (jobCharge), so a rate change
 * applies only to jobs finalized after it, and a job that finished before
 * billing existed is never finalized retroactively: it stays at 0.
 */
import { addClaimSpend } from '../claims/store';
import type { Job } from '../jobs/job-record-rules';
import { logger } from '../observability/logger';
import { completionBilling, recordCompletionBilling } from './charge-store';
import type { JobCharge } from './credit-rules';

export type FinalizeOutcome = { finalized: boolean; job: Job | null };

/** Adds finalized credits to the claim's spend; a claim deleted meanwhile keeps nothing to add to. */
export async function addFinalizedSpend(job: Pick<Job, 'id' | 'claim_id'>, credits: number): Promise<void> {
  // A crash between the job's write and this one would lose the claim's increment; the job's
  // billed_cost_usd stays the record of truth.
  if (!(await addClaimSpend(job.claim_id, credits))) {
    logger.warn('claim gone at finalize; spend not added to it', { job_id: job.id, claim_id: job.claim_id });
  }
}

/**
 * Records the billed credits exactly once per job success: the write is
 * conditional on billing_finalized_at being null, and only the call that wins
 * it adds the credits to the claim's spend. `charge` comes from jobCharge at
 * finalize time (current prices; 0 for enterprise and training). A pipeline's
 * completion makes the same write together with the status change
 * (lib/orchestrator/terminal.ts), so a complete job is never seen unbilled.
 */
export async function finalizeJobBilling(
  job: Pick<Job, 'id' | 'claim_id'>,
  charge: JobCharge,
  now = new Date(),
): Promise<FinalizeOutcome> {
  const billing = completionBilling(charge, now);
  const updated = await recordCompletionBilling(job.id, billing, now);
  if (!updated) {
    logger.debug('billing already finalized (or job gone); nothing added', { job_id: job.id });
    return { finalized: false, job: null };
  }
  await addFinalizedSpend({ id: job.id, claim_id: updated.claim_id ?? job.claim_id }, billing.credits);
  logger.info('billing finalized', {
    job_id: job.id,
    claim_id: updated.claim_id,
    credits: billing.credits,
    blocks: charge.blocks,
    minutes: charge.minutes,
  });
  return { finalized: true, job: updated };
}
