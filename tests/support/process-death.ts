/**
 * A request cut off in the test's own process: a use case's checkpoint (its
 * `checkpoint` or `interrupt` dependency) throws ProcessDied at the named
 * step, so nothing after it runs, as if the function had died there. The
 * job's billing rows the sweeps read, and the passing of a round's lease.
 */
import { pendingBillingEntries } from '../../lib/billing/settlement-store';
import { UNSTARTED_ROUND_LEASE_MS } from '../../lib/billing/settlement-rules';
import { setFields } from './aws';

export class ProcessDied extends Error {}

/** A checkpoint that dies once `step` is reached. */
export const dieAt = (step: string) => (at: string) => {
  if (at === step) throw new ProcessDied(`died after ${step}`);
};

/** The job's entry on the pending-billing index, as the billing sweep reads it; null when it is not listed. */
export async function sweepEntryOf(jobId: string) {
  for await (const entry of pendingBillingEntries()) if (entry.kind === 'job' && entry.jobId === jobId) return entry;
  return null;
}

/** What time does to a job's charged round: its lease runs out. */
export const leaseRunsOut = (jobId: string) =>
  setFields(`JOB#${jobId}`, 'JOB', {
    billing_charged_at: new Date(Date.now() - UNSTARTED_ROUND_LEASE_MS - 1000).toISOString(),
  });
