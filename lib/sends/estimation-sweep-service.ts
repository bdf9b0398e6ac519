/**
 * The estimation part of the send sweep (run by the watchdog schedule): an
 * estimation send whose process died between its record and its end
 * ('sending', 'delivered') is finished here once its lease has run out, as
 * the claim's next send would finish it: the same charge reference (no
 * second charge), the same remote call (idempotent), then the stamps; or, if
 * the remote refuses it now, refunded. So a dead send never holds its charge
 * or its items longer than its lease plus one sweep.
 */
import { randomUUID } from 'node:crypto';
import { settings } from '../config';
import { logger } from '../observability/logger';
import { getTeam } from '../teams/store';
import { completeInterruptedSend, LEASE_MS } from './estimation-batch-service';
import { acquireSendLease, getEstimationSend, openEstimationSendClaimIds, releaseSendLease } from './estimation-store';

export interface EstimationSweepReport {
  checked: number;
  finished: number;
  refunded: number;
}

export async function sweepInterruptedEstimationSends(now = new Date()): Promise<EstimationSweepReport> {
  const report: EstimationSweepReport = { checked: 0, finished: 0, refunded: 0 };
  for await (const claimId of openEstimationSendClaimIds()) {
    const record = await getEstimationSend(claimId);
    if (!record || (record.state !== 'sending' && record.state !== 'delivered')) continue;
    if (record.lease_until >= now.getTime()) continue;
    report.checked++;
    const owner = randomUUID();
    try {
      const lease = await acquireSendLease(
        { id: claimId, team_id: record.team_id },
        owner,
        Date.now(),
        Date.now() + LEASE_MS,
      );
      // Busy: a new send of the claim took it over and finishes it itself.
      if (lease.busy || !lease.previous) continue;
      const team = await getTeam(record.team_id);
      if (!team) continue;
      const result = await completeInterruptedSend(lease.previous, owner, team, settings(), () => {});
      report[result ? 'finished' : 'refunded']++;
    } catch (err) {
      logger.error('send sweep could not finish an interrupted estimation send; the next sweep tries again', {
        claim_id: claimId,
        error: String(err),
      });
    } finally {
      // Finishing releases the lease; a refusal leaves it held for a new request, which there is none of here.
      await releaseSendLease(claimId, owner).catch(() => undefined);
    }
  }
  if (report.checked) logger.info('estimation send sweep', { ...report });
  return report;
}
