/**
 * Whether a job's charges are waived (spec: Limits > Credit prices, rules 8
 * and 9): the team's enterprise flag exempts every charge, and training
 * claims are not charged. Every place that prices a job reads them here.
 */
import { getClaim } from '../claims/store';
import { teamFeatures } from '../features/store';
import type { Job } from '../jobs/job-record-rules';

export interface ChargeExemptions {
  enterprise: boolean;
  training: boolean;
}

export async function loadChargeExemptions(job: Pick<Job, 'team_id' | 'claim_id'>): Promise<ChargeExemptions> {
  const [features, claim] = await Promise.all([teamFeatures(job.team_id), getClaim(job.claim_id)]);
  return { enterprise: features.enterprise, training: Boolean(claim?.is_training) };
}
