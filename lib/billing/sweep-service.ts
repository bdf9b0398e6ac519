/**
 * The billing sweep (functions/schedules/billing-sweep.ts): settles every
 * entry of the pending-billing index, oldest first: jobs owing billing
 * (settlement-service.ts) and refunds of failed sends not yet confirmed
 * (send-charge-service.ts). After DOWN_AFTER entries in a row stay owed the
 * service counts as down (or hung) and the sweep stops, so it never spends its
 * whole timeout on a dead service; the next sweep carries on.
 */
import { logger } from '../observability/logger';
import { settleSendRefund } from './send-charge-service';
import { type BillingDeps, settleJobBilling } from './settlement-service';
import { pendingBillingEntries } from './settlement-store';

/** Entries left owed in a row after which the service counts as down for this sweep. */
const DOWN_AFTER = 3;

export interface SweepReport {
  checked: number;
  settled: number;
  pending: number;
}

export async function sweepPendingBilling(deps: BillingDeps = {}): Promise<SweepReport> {
  const report: SweepReport = { checked: 0, settled: 0, pending: 0 };
  let inARow = 0;
  for await (const entry of pendingBillingEntries()) {
    report.checked++;
    const state =
      entry.kind === 'job'
        ? (await settleJobBilling(entry.jobId, deps)).state
        : await settleSendRefund(entry.reference, deps);
    if (state !== 'pending') {
      report.settled++;
      inARow = 0;
      continue;
    }
    report.pending++;
    if (++inARow >= DOWN_AFTER) {
      logger.warn('billing sweep stopped: the billing service is not settling; the next sweep carries on', {
        ...report,
      });
      return report;
    }
  }
  logger.info('billing sweep', { ...report });
  return report;
}
