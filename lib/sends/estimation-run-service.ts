/**
 * An estimation platform send runs on the engine (lib/orchestrator), as the
 * run kind `estimation-send` of its claim's send record (estimation-store.ts).
 * Its pipeline has one stage, `send` (estimation-delivery-service.ts): the
 * charge of the recorded batch, the remote call, its record, the stamps.
 *
 *  - The send's request runs the stage itself and answers with its result
 *    (lib/orchestrator/request-stage.ts); a request running short of time
 *    hands the stage to the workers instead and answers 503.
 *  - A request that died is found by the watchdog once its lease has run
 *    out; the engine runs the stage again on a worker, from where the record
 *    says the send got, under the same charge reference: no second charge,
 *    nothing added twice on the platform.
 *  - A refusal (a 402, a mapped remote failure) fails the run, moving its
 *    charge round on, with the refund its charge owes written in the same
 *    transaction, before the refund is asked for (`failEstimationSend`).
 *  - A run the engine gives up on (a second interruption, hung, too long)
 *    fails the same way, unless the platform had accepted its batch: that
 *    send is finished instead (its items are on the platform).
 */
import { randomUUID } from 'node:crypto';
import { requestOwedSendRefund } from '../billing/send-charge-service';
import type { UnconfirmedSpend } from '../billing/send-refund-record-rules';
import { addClaimSpend } from '../claims/store';
import { settings } from '../config';
import { DomainError, InsufficientCreditsError } from '../errors';
import { endsInvocation, faultPoint } from '../faults/fault-points';
import { sendKeys } from './keys';
import { logger } from '../observability/logger';
import { type RunContext, type RunPipeline, registerPipeline, serviceRunLog } from '../orchestrator/pipeline';
import type { RunKind } from '../orchestrator/run-kind';
import { registerRunKind } from '../orchestrator/run-kinds';
import { destinationOf } from './destination-rules';
import { recordSend } from '../stats/service';
import { getTeam } from '../teams/store';
import type { Team } from '../teams/team-record-rules';
import { getUser } from '../users/store';
import { deliverEstimationSend } from './estimation-delivery-service';
import {
  type EstimationSend,
  estimationSendUpdateInput,
  getEstimationSend,
  openEstimationSendClaimIds,
  recordSendDone,
  recordSendFailure,
  type StageHolder,
  updateEstimationSend,
} from './estimation-store';

export const SEND_INTERRUPTED =
  'The send to the estimation platform was interrupted; any charge for it is refunded. Send again.';

/** What the send's stage receives. */
interface EstimationSendContext extends RunContext {
  send: EstimationSend;
}

/** This send's destination (destination-rules.ts): its run kind and pipeline take their names from it. */
const estimationPlatformDestination = destinationOf('estimation_platform');

export const estimationSendPipeline: RunPipeline<EstimationSendContext, EstimationSend, 'processing'> = {
  name: estimationPlatformDestination.pipeline,
  kind: estimationPlatformDestination.runKind,
  stages: [
    {
      name: 'send',
      status: 'processing',
      progress: [0, 100],
      // A worker runs it only for a request that died: the send is carried on from its record.
      async run(ctx) {
        const { result } = await deliverOrFail(ctx.send);
        return { kind: 'next', set: { result } };
      },
    },
  ],
};

/** A send's lines go to the service's log (a send has no log of its own). */
const sendLog = (claimId: string) => serviceRunLog({ claim_id: claimId, send: 'estimation_platform' });

export const estimationSendRunKind: RunKind<EstimationSend, EstimationSendContext> = {
  name: estimationPlatformDestination.runKind,
  unitPartition: (id) => sendKeys.estimationSend(id).pk,
  get: getEstimationSend,
  update: updateEstimationSend,
  updateInput: estimationSendUpdateInput,
  log: sendLog,
  context: (send, heartbeat) => ({ send, log: sendLog(send.claim_id), heartbeat }),
  runningStatuses: ['processing'],
  activeIds: openEstimationSendClaimIds,
  fail: endSend,
  complete: async (send) => {
    await completeEstimationSend(send);
  },
  // Every step is safe to run again under the same reference: a worker carries on where the request stopped.
  restartFields: () => ({ from: 'send', set: {} }),
  timeoutSeconds: () => settings().JOB_TIMEOUT_S,
  messages: {
    interrupted: SEND_INTERRUPTED,
    stuckForADay: 'The send to the estimation platform was stuck for more than 24 hours; it is refunded. Send again.',
    hung: 'The send to the estimation platform stopped making progress; it is refunded. Send again.',
    timedOut: (minutes) =>
      `The send to the estimation platform ran longer than ${minutes} minutes; it is refunded. Send again.`,
    dismissed: 'Stopped by an administrator; the send is refunded.',
  },
};

registerRunKind(estimationSendRunKind);
registerPipeline(estimationSendPipeline);

/**
 * After the run's closing write: the send is done. Only the writer of 'done'
 * adds the spend to the claim and counts the send, so a send finished twice
 * counts once. Null when it had ended already.
 */
async function completeEstimationSend(send: EstimationSend): Promise<EstimationSend | null> {
  if (!(await recordSendDone(send))) return null;
  if (send.credits > 0) await addClaimSpend(send.claim_id, send.credits);
  await recordSend(send.team_id, estimationPlatformDestination.statsCounter, new Date());
  logger.info('estimation send done', {
    claim_id: send.claim_id,
    claim_key: send.remote?.claim_key,
    items: send.item_count,
    credits: send.credits,
    dry_run: send.dry_run,
  });
  return getEstimationSend(send.claim_id);
}

/**
 * The stage's work for the runner holding it (the request, or a worker): a
 * refusal (a 402, a mapped remote failure) fails the run first, with the
 * refund its charge owes, and is then thrown for the request to answer (a
 * worker's engine finds the run ended).
 */
export async function deliverOrFail(send: EstimationSend, config = settings()) {
  try {
    return await deliverEstimationSend(send, config);
  } catch (err) {
    if (endsInvocation(err) || !(err instanceof DomainError)) throw err;
    // The record as the refusal left it: its charge, if it was recorded.
    const current = await getEstimationSend(send.claim_id);
    if (current && current.run_id === send.run_id)
      await failEstimationSend(current, err.message, {
        holder: send,
        refused: err instanceof InsufficientCreditsError,
      });
    throw err;
  }
}

/**
 * Ends a send the engine gives up on. One the platform had accepted is
 * finished (its items are there; its charge stands); any other is failed
 * with its charge owed back. Null when it had ended already.
 */
async function endSend(seen: EstimationSend, message: string): Promise<EstimationSend | null> {
  // The record as it is now (the caller's copy may predate its charge's record).
  const send = await getEstimationSend(seen.claim_id);
  if (!send || send.run_id !== seen.run_id || send.status !== 'processing') return null;
  if (send.state === 'delivered') return finishAccepted(send);
  if (!(await failEstimationSend(send, message))) return null;
  logger.warn('estimation send ended unfinished; its charge is given back', {
    claim_id: send.claim_id,
    reason: message,
  });
  return getEstimationSend(send.claim_id);
}

/** How long the watchdog's finishing of an accepted send holds it (its stamps take seconds). */
const FINISH_LEASE_MS = 5 * 60_000;

/** A send whose batch the platform accepted: its stamps and link (safe to write again), then done. */
async function finishAccepted(send: EstimationSend): Promise<EstimationSend | null> {
  const now = new Date();
  const held = await updateEstimationSend(send.claim_id, {
    set: {
      stage_state: 'running',
      stage_runner: randomUUID(),
      stage_lease_until: new Date(now.getTime() + FINISH_LEASE_MS).toISOString(),
      heartbeat_at: now.toISOString(),
    },
    expectStatus: ['processing'],
    condition: 'run_id = :run',
    values: { ':run': send.run_id },
  });
  if (!held) return null;
  try {
    const { result } = await deliverEstimationSend(held, settings());
    const closed = await updateEstimationSend(send.claim_id, {
      set: { result, stage_state: 'done' },
      expectStatus: ['processing'],
      condition: 'run_id = :run AND stage_runner = :runner',
      values: { ':run': held.run_id, ':runner': held.stage_runner },
    });
    return closed ? completeEstimationSend(closed) : null;
  } catch (err) {
    if (endsInvocation(err)) throw err;
    // Nothing left to stamp (the claim went meanwhile): the send ends; its charge stands, the platform has it.
    logger.error('an accepted estimation send could not be finished', { claim_id: send.claim_id, error: String(err) });
    return (await recordSendFailure(held, 'The send could not be finished.', null, held))
      ? getEstimationSend(send.claim_id)
      : null;
  }
}

/**
 * Fails the send with the refund of its charge owed in the same write (the
 * round moved on), then asks the billing service for it (the billing sweep
 * asks again until it answers). `holder`: only while that runner holds the
 * send's stage. `refused`: the billing service refused the spend (402), so
 * nothing is owed. False when the send had moved on.
 */
async function failEstimationSend(
  send: EstimationSend,
  error: string,
  options: { holder?: StageHolder; refused?: boolean } = {},
): Promise<boolean> {
  const team = await getTeam(send.team_id);
  const refund = options.refused ? null : await owedRefund(send, team);
  if (!(await recordSendFailure(send, error, refund, options.holder))) return false;
  faultPoint('estimation-send:failed', [send.claim_id]);
  if (refund && team) await requestOwedSendRefund(team, { reference: refund.reference });
  return true;
}

/**
 * What a failed send owes back: its recorded charge; or, for a send whose
 * charge was never recorded (its request died around the spend), the spend
 * it may have made, asked for again before anything is refunded (the service
 * answers the spend it made, or makes it now; a refusal means nothing is on
 * the ledger).
 */
async function owedRefund(
  send: EstimationSend,
  team: Team | null,
): Promise<{ teamId: string; reference: string; spend?: UnconfirmedSpend } | null> {
  if (send.dry_run || !send.reference || !team) return null;
  if (send.credits > 0)
    return { teamId: team.id, reference: send.reference, ...(send.charge_spend ? { spend: send.charge_spend } : {}) };
  if (send.planned_credits <= 0 || send.state !== 'sending' || team.external_id === null) return null;
  const sender = send.sender_user_id ? await getUser(send.sender_user_id) : null;
  const count = send.item_count;
  return {
    teamId: team.id,
    reference: send.reference,
    spend: {
      team_external_id: team.external_id,
      user_external_id: sender?.external_id ?? null,
      amount: send.planned_credits,
      description: `Estimation platform send: ${count} item${count === 1 ? '' : 's'} (interrupted)`,
    },
  };
}
