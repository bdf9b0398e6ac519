/**
 * A claims platform send runs on the engine (lib/orchestrator), as the run
 * kind `claims-send` of its Submission (spec: Claims platform send, rules
 * 2-8). Its pipeline has two stages:
 *
 *  - `request`: run by the send's request itself (the charge, then the remote
 *    claim and rooms, answered at once: lib/orchestrator/request-stage.ts).
 *    A request that died is found by the watchdog once its lease has run
 *    out, and the send is failed with its charge owed back (`endSend`).
 *  - `items`: one unit per item, a few at a time, each reading the one row that
 *    names its item (numbered by the stage's plan)
 *    (claims-platform-item-service.ts); a unit that fails is run again after
 *    a backoff, a unit whose worker died is sent again by the watchdog.
 *
 * Completing the run counts every item still pending failed (its share of
 * the charge owed back in the same write) and completes the Submission; a
 * run the watchdog gives up on (hung, too long) ends the same way, so no
 * send stays processing and an item is never both refunded and submitted.
 */
import { requestOwedSendRefund } from '../billing/send-charge-service';
import type { UnconfirmedSpend } from '../billing/send-refund-record-rules';
import { settings } from '../config';
import { sendKeys } from './keys';
import { logger } from '../observability/logger';
import { type RunContext, type RunPipeline, registerPipeline, serviceRunLog } from '../orchestrator/pipeline';
import type { RunKind } from '../orchestrator/run-kind';
import { registerRunKind } from '../orchestrator/run-kinds';
import { destinationOf } from './destination-rules';
import { getTeam } from '../teams/store';
import type { Team } from '../teams/team-record-rules';
import { getUser } from '../users/store';
import { countItem, deliverSubmissionItem } from './claims-platform-item-service';
import { recordUnitItems, submissionItemIds, unitItemId } from './submission-item-store';
import {
  completeSubmission,
  failSubmission,
  getSubmission,
  openSubmissionIds,
  submissionUpdateInput,
  updateSubmission,
} from './submission-store';
import type { Submission, RequestStep } from './submission-record-rules';

export const SEND_INTERRUPTED =
  'The send was interrupted before its items went out; any charge for it is refunded. Send again.';

/** What a step of a send's run receives. */
interface ClaimsSendContext extends RunContext {
  submission: Submission;
}

/** Items sent side by side by one send: a few at a time keeps the platform's rate and the units queue fair. */
const ITEMS_IN_FLIGHT = 8;

/** This send's destination (destination-rules.ts): its run kind and pipeline take their names from it. */
export const claimsPlatformDestination = destinationOf('claims_platform');

export const claimsPlatformSendPipeline: RunPipeline<ClaimsSendContext, Submission, 'processing'> = {
  name: claimsPlatformDestination.pipeline,
  kind: claimsPlatformDestination.runKind,
  stages: [
    {
      name: 'request',
      status: 'processing',
      progress: [0, 10],
      // Only the send's request runs it: a worker never gets its message (the run is opened with it taken).
      async run() {
        throw new Error("only the send's request runs it");
      },
    },
    {
      name: 'items',
      status: 'processing',
      progress: [10, 100],
      async run(ctx) {
        // Numbered once here, in a fixed order (a restarted plan numbers them the same): unit i sends the i-th.
        const items = (await submissionItemIds(ctx.submission.id)).sort();
        await recordUnitItems(ctx.submission.id, items);
        return { kind: 'fanout', units: items.length, concurrency: ITEMS_IN_FLIGHT };
      },
      async unit(ctx, index) {
        const itemId = await unitItemId(ctx.submission.id, index);
        if (!itemId) throw new Error(`send ${ctx.submission.id} has no item numbered ${index}`);
        await deliverSubmissionItem(ctx.submission, itemId);
      },
    },
  ],
};

/** A send's lines go to the service's log (a send has no log of its own). */
const sendLog = (submissionId: string) => serviceRunLog({ submission_id: submissionId });

export const claimsSendRunKind: RunKind<Submission, ClaimsSendContext> = {
  name: claimsPlatformDestination.runKind,
  // Unit rows sit in the send's own partition, beside its item rows (`ITEM#…`): they go when the send does.
  unitPartition: (id) => sendKeys.submission(id).pk,
  get: getSubmission,
  update: updateSubmission,
  updateInput: submissionUpdateInput,
  log: sendLog,
  context: (submission, heartbeat) => ({ submission, log: sendLog(submission.id), heartbeat }),
  runningStatuses: ['processing'],
  activeIds: openSubmissionIds,
  fail: endSend,
  complete: async (submission) => {
    await completeSend(submission);
  },
  // The request's stage cannot be run again without its request; the items' plan can.
  restartFields: (submission) =>
    submission.stage_name === 'request' || !submission.stage_name ? null : { from: submission.stage_name, set: {} },
  timeoutSeconds: () => settings().JOB_TIMEOUT_S,
  messages: {
    interrupted: SEND_INTERRUPTED,
    stuckForADay: 'The send was stuck for more than 24 hours; what did not go out stays unsubmitted. Send again.',
    hung: 'The send stopped making progress; what did not go out stays unsubmitted and is refunded. Send again.',
    timedOut: (minutes) =>
      `The send ran longer than ${minutes} minutes; what did not go out stays unsubmitted and is refunded. Send again.`,
    dismissed: 'Stopped by an administrator; what did not go out stays unsubmitted and is refunded.',
  },
};

registerRunKind(claimsSendRunKind);
registerPipeline(claimsPlatformSendPipeline);

/**
 * Ends a send the engine gives up on: one whose request died (still at a
 * request step) is failed with its charge owed back; one whose items were
 * handed over completes with what went out, the rest counted failed and
 * refunded. Null when the send had ended already.
 */
async function endSend(submission: Submission, message: string): Promise<Submission | null> {
  if (submission.request_step) {
    const team = await getTeam(submission.team_id);
    if (!(await failSend(submission, submission.request_step, message, team))) return null;
    logger.warn('claims platform send ended: its request died; its charge is given back', {
      submission_id: submission.id,
      claim_id: submission.claim_id,
      reason: message,
    });
    return getSubmission(submission.id);
  }
  logger.warn('claims platform send ended before every item went out', {
    submission_id: submission.id,
    claim_id: submission.claim_id,
    reason: message,
  });
  return completeSend(submission);
}

/** Counts every item still pending failed (refunded), then completes the send; null when it had ended already. */
async function completeSend(submission: Submission): Promise<Submission | null> {
  for (const itemId of await submissionItemIds(submission.id, 'pending'))
    await countItem(submission, itemId, { ok: false });
  const completed = await completeSubmission(submission);
  if (completed)
    logger.info('claims platform send complete', {
      submission_id: submission.id,
      claim_id: submission.claim_id,
      items: completed.done_count,
      failed: completed.failed_count,
      photos: completed.photo_count,
      seconds: completed.processing_seconds,
    });
  return completed;
}

/**
 * Fails a send whose request is at step `from` with the refund of its charge
 * owed in the same write, then asks the billing service for it (the billing
 * sweep asks again until it answers).
 */
export async function failSend(
  submission: Submission,
  from: RequestStep,
  error: string,
  team: Pick<Team, 'id' | 'external_id'> | null,
): Promise<boolean> {
  const owes = !submission.dry_run && submission.credits > 0 && team && team.external_id !== null;
  const spend = owes
    ? (submission.charge_spend ?? (from === 'charging' ? await askedSpend(submission, team) : null))
    : null;
  const refund = owes ? { teamId: team.id, reference: submission.charge_key, ...(spend ? { spend } : {}) } : null;
  if (!(await failSubmission(submission, from, error, { refund }))) return false;
  if (refund && team) await requestOwedSendRefund(team, refund);
  return true;
}

/**
 * The spend of a send that died in `charging`: it may have been asked for and
 * its answer never recorded, so its refund asks for it again first (the
 * service answers the spend it made, or makes it now; a refusal means nothing
 * is on the ledger).
 */
async function askedSpend(submission: Submission, team: Pick<Team, 'external_id'>): Promise<UnconfirmedSpend | null> {
  if (team.external_id === null || team.external_id === undefined) return null;
  const sender = await getUser(submission.created_by_user_id);
  return {
    team_external_id: team.external_id,
    user_external_id: sender?.external_id ?? null,
    amount: Math.ceil(submission.credits),
    description: `Claims platform send: ${submission.item_count} item${submission.item_count === 1 ? '' : 's'} (interrupted)`,
  };
}
