/**
 * The step-function-style engine. A run (of a job, or of any registered run
 * kind: run-kind.ts) goes through a declared pipeline one SQS message at a
 * time:
 *
 *  - A stage message {kind, id, run_id, stage} runs only after a conditional
 *    lease on the subject (same run, same stage, stage_state 'queued'), so a
 *    duplicated, redelivered or out-of-order message can never run a stage
 *    twice or move a run backwards. A new run_id on every start/restart makes
 *    messages of an earlier run harmless.
 *  - A fan-out stage dispatches unit messages through a pointer
 *    (fanout_next), keeping at most `concurrency` in flight, and fans in on a
 *    counter (fanout_done). A unit is marked done and counted in one
 *    transaction (store.ts); the completion that counts the last unit
 *    advances the run, and the watchdog advances a fan-out whose units are
 *    all done if that completion's worker died first.
 *  - A unit that fails is retried after an exponential backoff (its SQS
 *    message is made visible again early), up to UNIT_MAX_ATTEMPTS.
 *  - A stage may be made of branches that run side by side, each with its
 *    own lease and fan-out, joined once when all are done (branches.ts).
 *  - A lease that expired while its stage was running means the worker died:
 *    that is an interruption (recovery.ts).
 */
import { randomUUID } from 'node:crypto';
import { endsInvocation, faultPoint } from '../faults/fault-points';
import { inRunSpan } from '../observability/job-trace';
import { logger } from '../observability/logger';
import { retryDelaySeconds } from '../queue/delivery';
import { withRetry } from '../retry';
import { advance } from './advance';
import { stepKey } from './branch-rules';
import { afterBranchDone, branchClosing, handleBranchMessage, openBranchStage } from './branches';
import { branchContextFor, contextFor, errorText, raiseBranchProgress, withHeartbeat } from './context';
import {
  type AnyStageDefinition,
  type AnyStep,
  getPipeline,
  isBranchStage,
  type RunContext,
  type RunPipeline,
  type StepStage,
} from './pipeline';
import { handlePossibleInterruption } from './recovery';
import type { RunKind, RunRecord } from './run-kind';
import { runKind } from './run-kinds';
import { claimUnit, finishAndCount, finishAndCountBranch, leaseUntil, releaseUnit } from './store';
import { PipelineFailure } from './terminal';
import { sendUnit, stageOf, type StageMessage, type UnitMessage } from './transitions';

export { stageMessage, unitMessage, type StageMessage, type UnitMessage } from './transitions';
export { startJob } from './start';

/** A unit that failed this many deliveries is given up on (recorded as failed) so the fan-in can finish. */
const UNIT_MAX_ATTEMPTS = 3;

/** Pause before a failed stage's next attempt (then doubling): a store or queue fault passes in seconds. */
const STAGE_RETRY_BACKOFF_MS = 2000;

/** A stage's work, tried again in this invocation (under its lease) as often as the stage allows. */
function runStage<C extends RunContext>(def: StepStage<C, unknown, string>, ctx: C) {
  const retries = def.retries ?? 0;
  if (retries <= 0) return def.run(ctx);
  return withRetry(() => def.run(ctx), {
    attempts: 1 + retries,
    backoffMs: STAGE_RETRY_BACKOFF_MS,
    jitter: true,
    retryable: (err) => !(err instanceof PipelineFailure) && !endsInvocation(err),
    onRetry: (err, attempt) =>
      ctx.log.warn(
        `Stage ${def.name} failed (${errorText(err)}); trying it again (attempt ${attempt + 1} of ${1 + retries})`,
      ),
  });
}

/** How the queue delivered a unit message: lets the engine have it delivered again after a backoff. */
export interface UnitDelivery {
  /** The queue's receive count: 1 on the first delivery. */
  attempt: number;
  retryAfter(seconds: number): Promise<void>;
}
const noRedelivery: UnitDelivery = { attempt: 1, retryAfter: async () => undefined };

/** The subject of a message and its pipeline, when the message still belongs to its current run. */
async function runOf(
  message: StageMessage,
  fits: (record: RunRecord) => boolean,
): Promise<{ kind: RunKind; record: RunRecord; pipeline: RunPipeline | undefined } | null> {
  const kind = runKind(message.kind);
  if (!kind) {
    logger.error('run message dropped: its kind is not in this deployment', { ...message });
    return null;
  }
  const record = await kind.get(message.id);
  if (
    !record ||
    record.run_id !== message.run_id ||
    !kind.runningStatuses.includes(record.status) ||
    record.stage_name !== message.stage ||
    !record.pipeline ||
    !fits(record)
  ) {
    logger.info('run message dropped: stale or duplicate', {
      ...message,
      status: record?.status,
      stage_name: record?.stage_name,
      stage_state: record?.stage_state,
    });
    return null;
  }
  return { kind, record, pipeline: getPipeline(record.pipeline) };
}

/** Handles one stage message. Never throws for a message that can never succeed; throws to have SQS retry. */
export async function handleStageMessage(message: StageMessage): Promise<void> {
  const run = await runOf(message, () => true);
  if (!run) return;
  const { kind, record: job, pipeline } = run;
  const stage = pipeline && stageOf(pipeline, message.stage);
  if (!pipeline || !stage) {
    await kind.fail(job, `The ${job.pipeline} pipeline is not available in this deployment.`);
    return;
  }
  if (isBranchStage(stage.def)) {
    if (message.branch)
      await handleBranchMessage(kind, job, { ...message, branch: message.branch }, pipeline, stage.def);
    else await openBranchStage(kind, job, stage.def);
    return;
  }
  if (message.branch) {
    logger.info('branch message dropped: the stage has no branches', { ...message });
    return;
  }
  const def = stage.def;
  const runner = randomUUID();
  const now = new Date().toISOString();
  const claimed = await kind.update(job.id, {
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
    await handlePossibleInterruption(kind, job.id, message.run_id);
    return;
  }

  const ctx = contextFor(kind, claimed, stage.def);
  await ctx.log.info(`Stage ${def.name} started`);
  let outcome: Awaited<ReturnType<typeof def.run>>;
  try {
    outcome = await inRunSpan(`stage.${def.name}`, claimed.trace_parent, spanAttributes(kind, claimed, def.name), () =>
      withHeartbeat(ctx, () => runStage(def, ctx)),
    );
  } catch (err) {
    if (endsInvocation(err)) throw err; // a crash fails nothing: the stage's lease runs out
    await kind.fail(
      claimed,
      err instanceof PipelineFailure ? err.message : `The ${def.name} stage failed: ${errorText(err)}`,
    );
    return;
  }

  if (outcome.kind === 'fanout' && outcome.units > 0) {
    const inFlight = Math.min(Math.max(1, outcome.concurrency), outcome.units);
    const fanning = await kind.update(job.id, {
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
    faultPoint('engine:fanned-out', faultScope(job));
    await ctx.log.info(`Stage ${def.name}: ${outcome.units} units, ${inFlight} at a time`);
    await Promise.all(Array.from({ length: inFlight }, (_, index) => sendUnit(kind.name, fanning, index)));
    return;
  }
  await advance(kind, claimed, pipeline, stage.index, { runner, set: outcome.set });
}

// ---------------------------------------------------------------------------
// Fan-out units
// ---------------------------------------------------------------------------

/** Handles one unit message. Throws (after asking for a backoff) to have the queue deliver it again. */
export async function handleUnitMessage(message: UnitMessage, delivery: UnitDelivery = noRedelivery): Promise<void> {
  const runner = randomUUID();
  const claimed = await claimUnitOf(message, runner).catch(async (err) => {
    // Nothing is held yet: the message comes back after a backoff, not after the queue's visibility timeout
    // (hours), and the unit is run then.
    if (!endsInvocation(err))
      await delivery
        .retryAfter(retryDelaySeconds(delivery.attempt))
        .catch((e) => logger.warn('could not schedule the unit retry', { ...message, error: errorText(e) }));
    throw err;
  });
  if (!claimed) return;
  const { kind, job, pipeline, stage, step, key, unit } = claimed;

  const branchStage = isBranchStage(stage.def) ? stage.def : null;
  const ctx =
    branchStage && message.branch
      ? branchContextFor(kind, job, branchStage, message.branch)
      : contextFor(kind, job, stage.def);
  const retry = { kind, job, message, runner, delivery };
  let outcome: 'ok' | 'failed' = 'ok';
  let error: string | undefined;
  try {
    await inRunSpan(
      `stage.${key.replace('/', '.')}.unit`,
      job.trace_parent,
      {
        ...spanAttributes(kind, job, key),
        'pipeline.unit.index': message.index,
        'pipeline.unit.attempt': unit.attempts,
      },
      () => withHeartbeat(ctx, () => step.unit!(ctx, message.index)),
    );
  } catch (err) {
    if (endsInvocation(err)) throw err; // a crash retries nothing: the unit's lease runs out, the watchdog sends it again
    error = errorText(err);
    if (unit.attempts < UNIT_MAX_ATTEMPTS) {
      const delay = retryDelaySeconds(unit.attempts);
      await ctx.log.warn(
        `Unit ${message.index} of ${key} failed (attempt ${unit.attempts}); retrying in ${delay} s: ${error}`,
      );
      await retryLater(retry, delay);
      throw err;
    }
    outcome = 'failed';
    await ctx.log.error(`Unit ${message.index} of ${key} failed ${unit.attempts} times; giving up on it: ${error}`);
  }

  faultPoint('engine:unit-done', faultScope(job));
  let fanIn: Awaited<ReturnType<typeof finishAndCount>>;
  try {
    fanIn =
      branchStage && message.branch
        ? await finishAndCountBranch(
            kind,
            job,
            message.stage,
            message.branch,
            message.index,
            runner,
            outcome,
            branchClosing(branchStage, message.branch),
            error,
          )
        : await finishAndCount(kind, job, message.stage, message.index, runner, outcome, error);
  } catch (err) {
    // Neither written: the unit is redone on the next delivery and counted then.
    logger.warn('unit result not recorded; it will be retried', { ...message, error: errorText(err) });
    await retryLater(retry, retryDelaySeconds(unit.attempts));
    throw err;
  }
  if (fanIn.kind !== 'counted') return;
  faultPoint('engine:mid-fan-out', faultScope(job));
  const counted = fanIn.record;
  if (branchStage && message.branch) {
    const branch = counted.branches?.[message.branch];
    const toDispatch = (branch?.fanout_next ?? 0) - 1;
    if (toDispatch < (branch?.fanout_total ?? 0))
      await owedByCount(message, () => sendUnit(kind.name, counted, toDispatch, message.branch));
    if (branch?.state === 'done')
      await owedByCount(message, () => afterBranchDone(kind, counted, pipeline, branchStage, message.branch as string));
    else await raiseBranchProgress(kind, counted, branchStage).catch(() => undefined); // progress only
    return;
  }
  const toDispatch = counted.fanout_next - 1;
  if (toDispatch < counted.fanout_total) await owedByCount(message, () => sendUnit(kind.name, counted, toDispatch));
  // Progress within a fan-out is derived from these counters when the subject is read (jobProgress for a job).
  if (counted.fanout_done === counted.fanout_total)
    await owedByCount(message, () => advance(kind, counted, pipeline, stage.index, {}));
}

/**
 * What a unit's count owes the run (the next unit's message, the stage's advance, a branch's end) is done by that
 * count's invocation alone: a redelivered message finds its unit done and does nothing more. So a passing failure
 * of it (a queue slow to answer, a throttled write) is tried again here; one that persists is left to the watchdog,
 * which sends what is missing once the run has been quiet for STUCK_JOB_MINUTES. Each is safe to repeat: a
 * unit's second message finds it claimed or done, and the advance is a conditional write (a branch's end may write
 * its log line twice).
 */
function owedByCount<T>(message: UnitMessage, work: () => Promise<T>): Promise<T> {
  return withRetry(work, {
    attempts: 4,
    backoffMs: 1000,
    jitter: true,
    retryable: (err) => !endsInvocation(err),
    onRetry: (err, attempt) =>
      logger.warn('a unit was counted but what its count owes the run failed; trying it again', {
        ...message,
        attempt,
        error: errorText(err),
      }),
  });
}

/**
 * The unit a message names, claimed by `runner`: null when the message is stale, the unit done already or running
 * under a live lease elsewhere, or the pipeline cannot run it (the run is failed).
 */
async function claimUnitOf(message: UnitMessage, runner: string) {
  const run = await runOf(message, (record) =>
    message.branch
      ? record.stage_state === 'branches' && record.branches?.[message.branch]?.state === 'fanout'
      : record.stage_state === 'fanout',
  );
  if (!run) return null;
  const { kind, record: job, pipeline } = run;
  const stage = pipeline && stageOf(pipeline, message.stage);
  const step = stage && stepOf(stage.def, message.branch);
  if (!pipeline || !stage || !step?.unit) {
    await kind.fail(job, `The ${job.pipeline} pipeline cannot run units of ${stepKey(message.stage, message.branch)}.`);
    return null;
  }
  const key = stepKey(message.stage, message.branch);
  const unit = await claimUnit(kind, job, key, message.index, runner);
  return unit ? { kind, job, pipeline, stage, step, key, unit } : null;
}

/** What a stage, branch or unit span says about its run (ids and names only): `job.id` for a job. */
function spanAttributes(kind: RunKind, record: RunRecord, step: string) {
  return {
    [`${kind.name}.id`]: record.id,
    [`${kind.name}.pipeline`]: record.pipeline ?? 'none',
    'pipeline.stage': step,
  };
}

/** A test arms the engine's fault points for a subject, or for every run of its claim. */
const faultScope = (record: RunRecord) => [record.id, ...('claim_id' in record ? [String(record.claim_id)] : [])];

/** The step a unit message belongs to: the stage, or one of its branches. */
function stepOf(def: AnyStageDefinition, branch: string | undefined): AnyStep | undefined {
  if (!isBranchStage(def)) return branch ? undefined : def;
  return branch ? def.branches.find((b) => b.name === branch) : undefined;
}

/** Frees the unit for the next delivery and asks the queue for that delivery after `seconds`. */
async function retryLater(
  {
    kind,
    job,
    message,
    runner,
    delivery,
  }: {
    kind: RunKind;
    job: RunRecord;
    message: UnitMessage;
    runner: string;
    delivery: UnitDelivery;
  },
  seconds: number,
): Promise<void> {
  await releaseUnit(kind, job, stepKey(message.stage, message.branch), message.index, runner);
  // Without the backoff the queue still redelivers, only after its visibility timeout.
  await delivery
    .retryAfter(seconds)
    .catch((err) => logger.warn('could not schedule the unit retry', { ...message, error: errorText(err) }));
}
