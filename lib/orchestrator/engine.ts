/**
 * The step-function-style engine. A job runs a declared pipeline
 * one SQS message at a time:
 *
 *  - A stage message {job_id, run_id, stage} runs only after a conditional
 *    lease on the job (same run, same stage, stage_state 'queued'), so a
 *    duplicated, redelivered or out-of-order message can never run a stage
 *    twice or move a job backwards. A new run_id on every start/restart makes
 *    messages of an earlier run harmless.
 *  - A fan-out stage dispatches unit messages through a pointer
 *    (fanout_next), keeping at most `concurrency` in flight, and fans in on a
 *    counter (fanout_done). A unit is marked done and counted in one
 *    transaction (store.ts); the completion that counts the last unit
 *    advances the job, and the watchdog advances a fan-out whose units are all
 *    done if that completion's worker died first.
 *  - A unit that fails is retried after an exponential backoff (its SQS
 *    message is made visible again early), up to UNIT_MAX_ATTEMPTS.
 *  - A stage may be made of branches that run side by side, each with its
 *    own lease and fan-out, joined once when all are done (branches.ts).
 *  - A lease that expired while its stage was running means the worker died:
 *    that is an interruption (recovery.ts).
 */
import { faultPoint } from '../faults/fault-points';
import { randomUUID } from 'node:crypto';
import { getJob, updateJob, type Job } from '../jobs/job-store';
import { isRunning } from '../jobs/job-rules';
import { inRunSpan } from '../observability/job-trace';
import { logger } from '../observability/logger';
import { retryDelaySeconds } from '../queue/delivery';
import { stepKey } from './branch-rules';
import { afterBranchDone, branchClosing, handleBranchMessage, openBranchStage } from './branches';
import { branchContextFor, contextFor, errorText, raiseBranchProgress, withHeartbeat } from './context';
import { getPipeline, isBranchStage, type StageDefinition, type Step } from './pipeline';
import { handlePossibleInterruption } from './recovery';
import { claimUnit, finishAndCount, finishAndCountBranch, leaseUntil, releaseUnit } from './store';
import { failJob, PipelineFailure } from './terminal';
import { advance } from './advance';
import { sendUnit, stageOf, type StageMessage, type UnitMessage } from './transitions';

export { stageMessage, unitMessage, type StageMessage, type UnitMessage } from './transitions';
export { startJob } from './start';

/** A unit that failed this many deliveries is given up on (recorded as failed) so the fan-in can finish. */
const UNIT_MAX_ATTEMPTS = 3;

/** How the queue delivered a unit message: lets the engine have it delivered again after a backoff. */
export interface UnitDelivery {
  retryAfter(seconds: number): Promise<void>;
}
const noRedelivery: UnitDelivery = { retryAfter: async () => undefined };

/** Handles one stage message. Never throws for a message that can never succeed; throws to have SQS retry. */
export async function handleStageMessage(message: StageMessage): Promise<void> {
  const job = await getJob(message.job_id);
  if (
    !job ||
    job.run_id !== message.run_id ||
    !isRunning(job.status) ||
    job.stage_name !== message.stage ||
    !job.pipeline
  ) {
    logger.info('stage message dropped: stale or duplicate', {
      ...message,
      status: job?.status,
      stage_name: job?.stage_name,
    });
    return;
  }
  const pipeline = getPipeline(job.pipeline);
  const stage = pipeline && stageOf(pipeline, message.stage);
  if (!pipeline || !stage) {
    await failJob(job, `The ${job.pipeline} pipeline is not available in this deployment.`);
    return;
  }
  if (isBranchStage(stage.def)) {
    if (message.branch) await handleBranchMessage(job, { ...message, branch: message.branch }, pipeline, stage.def);
    else await openBranchStage(job, stage.def);
    return;
  }
  if (message.branch) {
    logger.info('branch message dropped: the stage has no branches', { ...message });
    return;
  }
  const def = stage.def;
  const runner = randomUUID();
  const now = new Date().toISOString();
  const claimed = await updateJob(job.id, {
    set: {
      status: def.status,
      current_stage: def.name,
      progress_pct: def.progress[0],
      stage_state: 'running',
      stage_runner: runner,
      stage_lease_until: leaseUntil(),
      heartbeat_at: now,
      [`stage_timings.${def.name}`]: { started_at: now, finished_at: null, seconds: null },
    },
    condition: 'run_id = :run AND stage_name = :stage AND stage_state = :queued',
    values: { ':run': job.run_id, ':stage': def.name, ':queued': 'queued' },
  });
  if (!claimed) {
    await handlePossibleInterruption(job.id, message.run_id);
    return;
  }

  const ctx = contextFor(claimed, stage.def);
  await ctx.log.info(`Stage ${def.name} started`);
  let outcome: Awaited<ReturnType<typeof def.run>>;
  try {
    outcome = await inRunSpan(`stage.${def.name}`, claimed.trace_parent, spanAttributes(claimed, def.name), () =>
      withHeartbeat(ctx, () => def.run(ctx)),
    );
  } catch (err) {
    await failJob(
      claimed,
      err instanceof PipelineFailure ? err.message : `The ${def.name} stage failed: ${errorText(err)}`,
    );
    return;
  }

  if (outcome.kind === 'fanout' && outcome.units > 0) {
    const inFlight = Math.min(Math.max(1, outcome.concurrency), outcome.units);
    const fanning = await updateJob(job.id, {
      set: {
        ...(outcome.set ?? {}),
        stage_state: 'fanout',
        fanout_total: outcome.units,
        fanout_next: inFlight,
        fanout_done: 0,
        fanout_progress: def.progress,
      },
      condition: 'run_id = :run AND stage_runner = :runner AND stage_state = :running',
      values: { ':run': claimed.run_id, ':runner': runner, ':running': 'running' },
    });
    if (!fanning) return; // the lease was lost (taken over after expiry); the new owner carries on
    faultPoint('engine:fanned-out', [job.id, job.claim_id]);
    await ctx.log.info(`Stage ${def.name}: ${outcome.units} units, ${inFlight} at a time`);
    await Promise.all(Array.from({ length: inFlight }, (_, index) => sendUnit(fanning, index)));
    return;
  }
  await advance(claimed, pipeline, stage.index, { runner, set: outcome.set });
}

// ---------------------------------------------------------------------------
// Fan-out units
// ---------------------------------------------------------------------------

/** Handles one unit message. Throws (after asking for a backoff) to have the queue deliver it again. */
export async function handleUnitMessage(message: UnitMessage, delivery: UnitDelivery = noRedelivery): Promise<void> {
  const job = await getJob(message.job_id);
  const fanning = message.branch
    ? job?.stage_state === 'branches' && job.branches?.[message.branch]?.state === 'fanout'
    : job?.stage_state === 'fanout';
  if (!job || job.run_id !== message.run_id || job.stage_name !== message.stage || !fanning || !job.pipeline) {
    logger.info('unit message dropped: stale or duplicate', { ...message, stage_state: job?.stage_state });
    return;
  }
  const pipeline = getPipeline(job.pipeline);
  const stage = pipeline && stageOf(pipeline, message.stage);
  const step = stage && stepOf(stage.def, message.branch);
  if (!pipeline || !stage || !step?.unit) {
    await failJob(job, `The ${job.pipeline} pipeline cannot run units of ${stepKey(message.stage, message.branch)}.`);
    return;
  }
  const key = stepKey(message.stage, message.branch);
  const runner = randomUUID();
  const unit = await claimUnit(job, key, message.index, runner);
  if (!unit) return; // done already, or running under a live lease elsewhere

  const branchStage = isBranchStage(stage.def) ? stage.def : null;
  const ctx =
    branchStage && message.branch ? branchContextFor(job, branchStage, message.branch) : contextFor(job, stage.def);
  let outcome: 'ok' | 'failed' = 'ok';
  let error: string | undefined;
  try {
    await inRunSpan(
      `stage.${key.replace('/', '.')}.unit`,
      job.trace_parent,
      { ...spanAttributes(job, key), 'pipeline.unit.index': message.index, 'pipeline.unit.attempt': unit.attempts },
      () => withHeartbeat(ctx, () => step.unit!(ctx, message.index)),
    );
  } catch (err) {
    error = errorText(err);
    if (unit.attempts < UNIT_MAX_ATTEMPTS) {
      const delay = retryDelaySeconds(unit.attempts);
      await ctx.log.warn(
        `Unit ${message.index} of ${key} failed (attempt ${unit.attempts}); retrying in ${delay} s: ${error}`,
      );
      await retryLater(job, message, runner, delivery, delay);
      throw err;
    }
    outcome = 'failed';
    await ctx.log.error(`Unit ${message.index} of ${key} failed ${unit.attempts} times; giving up on it: ${error}`);
  }

  faultPoint('engine:unit-done', [job.id, job.claim_id]);
  let fanIn: Awaited<ReturnType<typeof finishAndCount>>;
  try {
    fanIn =
      branchStage && message.branch
        ? await finishAndCountBranch(
            job,
            message.stage,
            message.branch,
            message.index,
            runner,
            outcome,
            branchClosing(branchStage, message.branch),
            error,
          )
        : await finishAndCount(job, message.stage, message.index, runner, outcome, error);
  } catch (err) {
    // Neither written: the unit is redone on the next delivery and counted then.
    logger.warn('unit result not recorded; it will be retried', { ...message, error: errorText(err) });
    await retryLater(job, message, runner, delivery, retryDelaySeconds(unit.attempts));
    throw err;
  }
  if (fanIn.kind !== 'counted') return;
  faultPoint('engine:mid-fan-out', [job.id, job.claim_id]);
  const counted = fanIn.job;
  if (branchStage && message.branch) {
    const branch = counted.branches?.[message.branch];
    const toDispatch = (branch?.fanout_next ?? 0) - 1;
    if (toDispatch < (branch?.fanout_total ?? 0)) await sendUnit(counted, toDispatch, message.branch);
    if (branch?.state === 'done') await afterBranchDone(counted, pipeline, branchStage, message.branch);
    else await raiseBranchProgress(counted, branchStage).catch(() => undefined); // progress only
    return;
  }
  const toDispatch = counted.fanout_next - 1;
  if (toDispatch < counted.fanout_total) await sendUnit(counted, toDispatch);
  // Progress within a fan-out is derived from these counters when the job is read (jobProgress).
  if (counted.fanout_done === counted.fanout_total) await advance(counted, pipeline, stage.index, {});
}

/** What a stage, branch or unit span says about its run (ids and names only). */
function spanAttributes(job: Job, step: string) {
  return { 'job.id': job.id, 'job.pipeline': job.pipeline ?? 'none', 'pipeline.stage': step };
}

/** The step a unit message belongs to: the stage, or one of its branches. */
function stepOf(def: StageDefinition, branch: string | undefined): Step | undefined {
  if (!isBranchStage(def)) return branch ? undefined : def;
  return branch ? def.branches.find((b) => b.name === branch) : undefined;
}

/** Frees the unit for the next delivery and asks the queue for that delivery after `seconds`. */
async function retryLater(
  job: Job,
  message: UnitMessage,
  runner: string,
  delivery: UnitDelivery,
  seconds: number,
): Promise<void> {
  await releaseUnit(job, stepKey(message.stage, message.branch), message.index, runner);
  // Without the backoff the queue still redelivers, only after its visibility timeout.
  await delivery
    .retryAfter(seconds)
    .catch((err) => logger.warn('could not schedule the unit retry', { ...message, error: errorText(err) }));
}
