/**
 * How a job's charges are named at the billing service: the spend and refund
 * references of a charge round and the spend's description.
 */
import type { Job } from '../jobs/job-record-rules';

/** The spend reference of one charge round of a job. */
export const jobChargeReference = (jobId: string, round: number) => `job:${jobId}:${round}`;

/** The reference of the refund of a round's unbilled part (spent up front, not billed at completion). */
export const unbilledRefundReference = (jobId: string, round: number) => `${jobChargeReference(jobId, round)}:adjust`;

export function spendDescription(job: Pick<Job, 'id' | 'source_type'>, credits: number): string {
  const kind = job.source_type.charAt(0).toUpperCase() + job.source_type.slice(1);
  return `${kind} processing: ${credits} credit${credits === 1 ? '' : 's'} (job ${job.id})`;
}
