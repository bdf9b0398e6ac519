/**
 * What a finished video or audio run costs: whole blocks of
 * BILLING_BLOCK_SECONDS of the seconds whose analysis was answered, at the
 * source type's block price (enterprise teams and training claims pay
 * nothing).
 */
import { jobCharge } from '../billing/credit-rules';
import { loadChargeExemptions } from '../billing/exemption-service';
import type { Job } from '../jobs/job-record-rules';

export async function recordingCredits(job: Job): Promise<{ credits: number; blocks: number; minutes: number }> {
  if (job.source_type === 'photo') throw new Error('a photo job is billed per AI request');
  return jobCharge({
    sourceType: job.source_type,
    durationSeconds: job.analyzed_seconds ?? job.duration ?? 0,
    ...(await loadChargeExemptions(job)),
  });
}
