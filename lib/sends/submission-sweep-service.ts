/**
 * The send sweep (run by the watchdog schedule): claims platform sends whose
 * lease ran out. A send whose request died before its items were handed over
 * (`charging`, `syncing`) is failed with its charge refunded through an owed
 * refund; a send whose fan-out or items stalled (`fanning_out`, `sending`) is
 * handed back to the worker MAX_RESUMES times, then what is still pending and
 * held by no live worker is counted failed (it stays unsubmitted for a later
 * send) and the send completes once nothing is left. So no send stays
 * processing longer than its lease plus an item's lease and one sweep.
 */
import { logger } from '../observability/logger';
import { getTeam } from '../teams/store';
import { failSend, queueFanOut } from './claims-platform-service';
import { count } from './claims-platform-worker-service';
import { settings as currentSettings } from '../config';
import { fanOutLeaseMs, MAX_RESUMES } from './claims-platform-rules';
import { submissionItemIds } from './submission-item-store';
import {
  advanceSubmission,
  completeSubmission,
  expiredSubmissionIds,
  getSubmission,
  type Submission,
} from './submission-store';

export const SEND_INTERRUPTED =
  'The send was interrupted before its items went out; any charge for it is refunded. Send again.';

export interface SendSweepReport {
  checked: number;
  failed: number;
  resumed: number;
  finished: number;
}

export async function sweepExpiredSends(now = new Date()): Promise<SendSweepReport> {
  const report: SendSweepReport = { checked: 0, failed: 0, resumed: 0, finished: 0 };
  for await (const id of expiredSubmissionIds(now)) {
    const submission = await getSubmission(id);
    if (submission?.status !== 'processing' || !submission.stage || submission.lease_until > now.getTime()) continue;
    report.checked++;
    try {
      const outcome = await settleExpiredSend(submission, now);
      if (outcome) report[outcome]++;
    } catch (err) {
      logger.error('send sweep could not settle a send; the next sweep tries again', {
        submission_id: id,
        error: String(err),
      });
    }
  }
  if (report.checked) logger.info('send sweep', { ...report });
  return report;
}

async function settleExpiredSend(submission: Submission, now: Date): Promise<'failed' | 'resumed' | 'finished' | null> {
  const context = { submission_id: submission.id, claim_id: submission.claim_id, stage: submission.stage };
  const stage = submission.stage;
  if (stage === 'charging' || stage === 'syncing') {
    const team = await getTeam(submission.team_id);
    if (!(await failSend(submission, stage, SEND_INTERRUPTED, team, submission.lease_until))) return null;
    logger.warn('send sweep: a send whose request died is failed and its charge refunded', context);
    return 'failed';
  }
  if (!stage) return null;
  if (submission.resumes < MAX_RESUMES) {
    const resumed = await advanceSubmission(
      submission.id,
      stage,
      'fanning_out',
      now.getTime() + fanOutLeaseMs(currentSettings()),
      {
        resumes: submission.resumes + 1,
      },
    );
    if (!resumed) return null;
    await queueFanOut(resumed);
    logger.warn('send sweep: a stalled send is handed back to the worker', context);
    return 'resumed';
  }
  const pending = await submissionItemIds(submission.id, 'pending');
  let held = 0;
  // Only items no live worker holds: one being sent is counted by its worker (or, if it dies, by a later sweep).
  for (const itemId of pending)
    if (!(await count(submission, itemId, { ok: false }, { sweep: true, now: now.getTime() }))) held++;
  if (held > 0) {
    logger.warn('send sweep: items of a stalled send are still being sent; the send waits for them', {
      ...context,
      items: pending.length - held,
      held,
    });
    return null;
  }
  // Every item is counted now; a send whose counters still fall short (none should) is closed all the same.
  const after = await getSubmission(submission.id);
  if (after?.status === 'processing') await completeSubmission(after);
  logger.warn('send sweep: the items a stalled send never counted are counted failed', {
    ...context,
    items: pending.length,
  });
  return 'finished';
}
