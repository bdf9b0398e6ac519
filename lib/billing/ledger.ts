/**
 * How a job's charges are named at the billing service, and the client the
 * prepaid paths share (lib/billing/prepaid.ts, lib/billing/settlement.ts).
 */
import { settings as currentSettings, type Settings } from '../config';
import { BillingServiceClient } from '../integrations/billing-service';
import type { Job } from '../jobs/job';

/** The spend reference of one charge round of a job. */
export const jobChargeReference = (jobId: string, round: number) => `job:${jobId}:${round}`;

/** The reference of the refund of a round's unbilled part (spent up front, not billed at completion). */
export const unbilledRefundReference = (jobId: string, round: number) => `${jobChargeReference(jobId, round)}:adjust`;

export interface BillingDeps {
  /** Defaults to a client built from the current settings. */
  client?: BillingServiceClient;
  config?: Settings;
}

export function billingClient(deps: BillingDeps = {}): BillingServiceClient {
  return deps.client ?? BillingServiceClient.fromSettings(deps.config ?? currentSettings());
}

export function spendDescription(job: Pick<Job, 'id' | 'source_type'>, credits: number): string {
  const kind = job.source_type.charAt(0).toUpperCase() + job.source_type.slice(1);
  return `${kind} processing: ${credits} credit${credits === 1 ? '' : 's'} (job ${job.id})`;
}
