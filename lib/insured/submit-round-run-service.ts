/**
 * A homeowner submit round runs on the engine (lib/orchestrator), as the run
 * kind `insured-round` of its round row (submit-round-store.ts). Its pipeline
 * has one stage, `make` (submit-round-service.ts submitRoundRows: mark the
 * rows, make the jobs), run by whoever the submit hands it to
 * (submit-service.ts):
 *
 *  - a small round: the submit request itself, the run opened with the stage
 *    taken under the request's lease (lib/orchestrator/request-stage.ts);
 *  - a large one: a stage worker, the run opened with the stage queued.
 *
 * A maker that died (its lease run out, no heartbeat for a minute) is found
 * by the watchdog, which restarts the stage once, under the same round (the
 * maker's derived ids make the re-run idempotent); a second interruption, or
 * a worker's making that still fails after its two retries (a store fault
 * that passes is tried again, after a pause), ends the run in failure. A round whose making
 * fails in the request is handed to a worker once, counted as the run's
 * recovery. Either way a round that keeps failing is ended by the engine
 * (`fail`): what reached a made job stays submitted, its other rows go back
 * to the draft, the link's round is over (the next submit starts a new one),
 * and the failure is logged at error and reported to error tracking. The spec
 * gives a submit no failed state to show.
 *
 * The kind and pipeline are registered with the engine by
 * submit-round-registration-service.ts, loaded by the workers and the
 * watchdog (lib/pipelines/index.ts) only: the submit request runs its stage
 * with the kind itself, and the engine's registry would bring the job kind
 * (billing, team rows) into the homeowner's public function.
 */
import { settings } from '../config';
import { insuredKeys } from './keys';
import { reportError } from '../observability/error-tracking';
import { logger } from '../observability/logger';
import { type RunContext, type RunPipeline, serviceRunLog } from '../orchestrator/pipeline';
import type { RunKind } from '../orchestrator/run-kind';
import { restoreRoundRows, submitRoundRows } from './submit-round-service';
import {
  endInsuredRound,
  getInsuredRound,
  type InsuredRound,
  insuredRoundUpdateInput,
  openInsuredRoundIds,
  updateInsuredRound,
} from './submit-round-store';

/** What the step of a round's run receives. */
interface InsuredRoundContext extends RunContext {
  round: InsuredRound;
}

const ROUND_INTERRUPTED =
  'The submit round was interrupted twice; what was not handed over is back in the draft for the next submit.';

export const insuredRoundPipeline: RunPipeline<InsuredRoundContext, InsuredRound, 'making'> = {
  name: 'insured-round',
  kind: 'insured-round',
  stages: [
    {
      name: 'make',
      status: 'making',
      progress: [0, 100],
      // A worker's making that meets a store fault tries again (the derived ids make it safe) before the round ends.
      retries: 2,
      async run(ctx) {
        const made = await submitRoundRows(ctx.round.link_id, ctx.round.round);
        return { kind: 'next', set: { made } };
      },
    },
  ],
};

/** A round's lines go to the service's log (a round has no log of its own). */
const roundLog = (id: string) => serviceRunLog({ insured_round_id: id });

export const insuredRoundRunKind: RunKind<InsuredRound, InsuredRoundContext> = {
  name: 'insured-round',
  // No stage fans out; unit rows would sit in the round's own partition.
  unitPartition: (id) => insuredKeys.insuredRound(id).pk,
  get: getInsuredRound,
  update: updateInsuredRound,
  updateInput: insuredRoundUpdateInput,
  log: roundLog,
  context: (round, heartbeat) => ({ round, log: roundLog(round.id), heartbeat }),
  runningStatuses: ['making'],
  activeIds: openInsuredRoundIds,
  fail: giveUpRound,
  complete: async (round) => {
    await endInsuredRound(round, { status: 'made', at: round.made?.submitted_at ?? new Date().toISOString() });
  },
  // The maker can run again from the start, by the request's run or a worker's: a worker takes it over.
  restartFields: () => ({ from: 'make', set: {} }),
  timeoutSeconds: () => settings().JOB_TIMEOUT_S,
  messages: {
    interrupted: ROUND_INTERRUPTED,
    stuckForADay: 'The submit round was stuck for more than 24 hours; what was not handed over is back in the draft.',
    hung: 'The submit round stopped making progress; what was not handed over is back in the draft.',
    timedOut: (minutes) =>
      `The submit round ran longer than ${minutes} minutes; what was not handed over is back in the draft.`,
    dismissed: 'Stopped by an administrator; what was not handed over is back in the draft.',
  },
};

/**
 * Ends a round the engine gives up on: its rows that reached no job go back
 * to the draft first (so a give-up cut off midway is finished by the next
 * sweep: the round is still listed), then the round ends. Null when it was
 * not under way or another run of it owns it.
 */
async function giveUpRound(round: InsuredRound, message: string): Promise<InsuredRound | null> {
  const current = await getInsuredRound(round.id);
  if (current?.status !== 'making' || current.run_id !== round.run_id) return null;
  const given = await restoreRoundRows(round.link_id, round.round);
  const ended = await endInsuredRound(round, { status: 'given_up', at: new Date().toISOString(), error: message });
  if (!ended) return null;
  const context = { link_id: round.link_id, round: round.round, attempts: round.recovery_attempts + 1 };
  logger.error('homeowner submit round given up', { ...context, ...given, reason: message });
  reportError({
    kind: 'pipeline_failure',
    level: 'error',
    message: `Homeowner submit round ${round.round} given up (${message}); ${given.rows_returned} row(s) are back in the draft for the next submit`,
    tags: { link_id: round.link_id, claim_id: round.claim_id, team_id: round.team_id },
    extra: { ...context, ...given },
  });
  return ended;
}
