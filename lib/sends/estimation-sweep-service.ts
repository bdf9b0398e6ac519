/**
 * The estimation part of the send sweep (run by the watchdog schedule): an
 * estimation send whose process died between its record and its end
 * ('sending', 'delivered') is finished here once its lease has run out, as
 * the claim's next send would finish it: the same charge reference (no
 * second charge), the same remote call (idempotent), then the stamps; or, if
 * the remote refuses it now, failed with its refund owed. So a dead send never
 * holds its charge or its items longer than its lease plus one sweep.
 *
 * Watchdog runs overlap (one a minute, each allowed 5 minutes), so only one
 * run finishes a send: it takes the send over with a conditional write that
 * holds only while the record is still the open send it saw, under the
 * expired lease it saw (a send another run or a request has taken over,
 * finished or failed since is left alone), and its lease outlasts the
 * watchdog's whole run, so a live run, however slow the platform, never
 * loses the send to the next one (a request's 60 s lease fits its 29 s).
 */
import { randomUUID } from 'node:crypto';
import { functionTimeoutSeconds } from '../background/functions';
import { type Settings, settings } from '../config';
import { logger } from '../observability/logger';
import { getTeam } from '../teams/store';
import { completeInterruptedSend } from './estimation-batch-service';
import { acquireSendLease, getEstimationSend, openEstimationSendClaimIds, releaseSendLease } from './estimation-store';

/** Longer than the watchdog may run, with room to spare. */
const SWEEP_LEASE_MS = (functionTimeoutSeconds('watchdog') + 60) * 1000;

export interface EstimationSweepReport {
  checked: number;
  finished: number;
  refunded: number;
}

export async function sweepInterruptedEstimationSends(
  now = new Date(),
  deps: { config?: Settings } = {},
): Promise<EstimationSweepReport> {
  const config = deps.config ?? settings();
  const report: EstimationSweepReport = { checked: 0, finished: 0, refunded: 0 };
  for await (const claimId of openEstimationSendClaimIds()) {
    const record = await getEstimationSend(claimId);
    if (!record || (record.state !== 'sending' && record.state !== 'delivered')) continue;
    if (record.lease_until >= now.getTime()) continue;
    report.checked++;
    const owner = randomUUID();
    try {
      const at = Date.now();
      const lease = await acquireSendLease({ id: claimId, team_id: record.team_id }, owner, at, at + SWEEP_LEASE_MS, {
        leaseSeen: record.lease_until,
      });
      // Busy: another run or a new send of the claim took it over (and finishes it), or it has ended since.
      if (lease.busy || !lease.previous) continue;
      const team = await getTeam(record.team_id);
      if (!team) continue;
      const result = await completeInterruptedSend(lease.previous, owner, team, config, () => {});
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
