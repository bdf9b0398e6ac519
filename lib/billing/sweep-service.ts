/**
 * The billing sweep (functions/schedules/billing-sweep.ts): settles every
 * entry of the pending-billing index, oldest first: jobs owing billing or
 * holding a charged round not started yet (settlement-service.ts, which gives
 * back a round whose lease has run out) and refunds of failed sends not yet
 * confirmed (send-charge-service.ts, which first asks again for a charge
 * whose answer was lost). A job that owes nothing and has no
 * round waiting (its run started) is taken off the index. After DOWN_AFTER
 * entries in a row stay owed the service counts as down (or hung) and the
 * sweep stops, so it never spends its whole timeout on a dead service; the
 * next sweep carries on.
 */
import { logger } from '../observability/logger';
import { settleSendRefund } from './send-charge-service';
import { type BillingDeps, settleJobBilling } from './settlement-service';
import { type PendingBilling, pendingBillingEntries, unlistSettledJob } from './settlement-store';

/** Entries left owed in a row after which the service counts as down for this sweep. */
const DOWN_AFTER = 3;

export interface SweepReport {
  checked: number;
  settled: number;
  pending: number;
  /** Rounds charged and not started while their lease holds: left listed for the next sweep. */
  waiting: number;
}

/** The sweep's work on one entry: what the entry's job or send refund still owes after it. */
export async function settlePendingEntry(
  entry: PendingBilling,
  deps: BillingDeps = {},
): Promise<'none' | 'settled' | 'pending' | 'waiting'> {
  if (entry.kind === 'send-refund') return settleSendRefund(entry.reference, deps);
  const settlement = await settleJobBilling(entry.jobId, deps);
  // Listed by its charge, and its run has started since: nothing left to watch. A lost write leaves it for the next sweep.
  if (settlement.state === 'none' && settlement.job) await unlistSettledJob(settlement.job);
  return settlement.state;
}

export async function sweepPendingBilling(deps: BillingDeps = {}): Promise<SweepReport> {
  const report: SweepReport = { checked: 0, settled: 0, pending: 0, waiting: 0 };
  let inARow = 0;
  for await (const entry of pendingBillingEntries()) {
    report.checked++;
    const state = await settlePendingEntry(entry, deps);
    if (state === 'waiting') {
      report.waiting++;
      continue;
    }
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
