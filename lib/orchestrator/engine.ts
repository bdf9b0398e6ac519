/**
 * The step-function-style engine (DESIGN §5). A job runs a declared pipeline
 * one SQS message at a time:
 *
 *  - A stage message {job_id, run_id, stage} runs only after a conditional
 *    lease on the job (same run, same stage, stage_state 'queued'), so a
 *    duplicated, redelivered or out-of-order message can never run a stage
 *    twice or move a job backwards. A new run_id on every start/restart makes
 *    messages of an earlier run harmless.
 *  - A fan-out stage dispatches unit messages through an atomic pointer
 *    (fanout_next), keeping at most `concurrency` in flight, and fans in on an
 *    atomic counter (fanout_done): the unit that completes the last one
 *    advances the job.
 *  - A lease that expired while its stage was running means the worker died:
 *    that is an interruption (recovery.ts).
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { settings } from '../config';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { getJob, isProcessing, STARTABLE_STATUSES, updateJob, type Job } from '../jobs/job';
import { JobLog } from '../jobs/logs';
import { logger } from '../observability/logger';
import { dispatch } from '../queue/dispatch';
import { getPipeline, refOf, type PipelineDefinition, type PipelineRef, type StageContext, type StageDefinition } from './pipeline';
import { handlePossibleInterruption } from './recovery';
import { completeJob, failJob, PipelineFailure } from './terminal';

export const stageMessage = z.object({ job_id: z.uuid(), run_id: z.string().min(1), stage: z.string().min(1) });
export const unitMessage = stageMessage.extend({ index: z.number().int().min(0) });
export type StageMessage = z.output<typeof stageMessage>;
export type UnitMessage = z.output<typeof unitMessage>;

/** A unit that failed this many deliveries is given up on (recorded as failed) so the fan-in can finish. */
export const UNIT_MAX_ATTEMPTS = 3;
const HEARTBEAT_MS = 15_000;

const leaseUntil = (now = Date.now()) => new Date(now + settings().STAGE_LEASE_SECONDS * 1000).toISOString();
const sameRun = (job: Pick<Job, 'run_id'>) => ({ condition: 'run_id = :run', values: { ':run': job.run_id } });

/** The engine fields of a stage waiting for its message (nothing leased, no fan-out). */
export function queuedStage(name: string): Partial<Job> {
  return { stage_name: name, stage_state: 'queued', stage_runner: null, stage_lease_until: null, fanout_total: 0, fanout_next: 0, fanout_done: 0 };
}

function stageOf(pipeline: PipelineDefinition, name: string): { def: StageDefinition; index: number } | null {
  const index = pipeline.stages.findIndex((s) => s.name === name);
  return index < 0 ? null : { def: pipeline.stages[index], index };
}

/**
 * Starts (or restarts) a job on a pipeline: status pending, a fresh run, the
 * first stage queued. Returns null when the job is not in a startable state.
 */
export async function startJob(job: Job, definition: PipelineDefinition | PipelineRef, extra: Partial<Job> = {}): Promise<Job | null> {
  const pipeline = refOf(definition);
  const now = new Date().toISOString();
  const started = await updateJob(job.id, {
    // A follow-up pass starts from a complete job and keeps its earlier stage timings.
    expectStatus: pipeline.followUp ? ['complete'] : STARTABLE_STATUSES,
    set: {
      ...extra,
      status: 'pending',
      current_stage: 'Queued',
      progress_pct: 0,
      error_message: null,
      pipeline: pipeline.name,
      follow_up_pass: pipeline.followUp,
      run_id: randomUUID(),
      ...queuedStage(pipeline.firstStage),
      ...(pipeline.followUp ? {} : { stage_timings: {} }),
      started_at: now,
      finished_at: null,
      heartbeat_at: now,
    },
  });
  if (!started) return null;
  await new JobLog(job.id).info(`Queued for processing (${pipeline.name})`);
  await sendStage(started);
  return started;
}

export async function sendStage(job: Job): Promise<void> {
  await dispatch('stages', { job_id: job.id, run_id: job.run_id as string, stage: job.stage_name as string } satisfies StageMessage);
}

async function sendUnit(job: Job, index: number): Promise<void> {
  await dispatch('units', { job_id: job.id, run_id: job.run_id as string, stage: job.stage_name as string, index } satisfies UnitMessage);
}

function contextFor(job: Job, def: StageDefinition): StageContext {
  const log = new JobLog(job.id);
  const [from, to] = def.progress;
  return {
    job,
    log,
    heartbeat: async (fraction?: number) => {
      const set: Partial<Job> = { heartbeat_at: new Date().toISOString() };
      if (fraction !== undefined) set.progress_pct = Math.round(from + (to - from) * Math.min(1, Math.max(0, fraction)));
      await updateJob(job.id, { set, ...sameRun(job) });
    },
  };
}

/** Runs `work` while a timer keeps the job's heartbeat fresh. */
async function withHeartbeat<T>(ctx: StageContext, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => void ctx.heartbeat().catch(() => undefined), HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

function timing(job: Job, stage: string, finishedAt: string) {
  const started = job.stage_timings?.[stage]?.started_at ?? finishedAt;
  return { started_at: started, finished_at: finishedAt, seconds: (Date.parse(finishedAt) - Date.parse(started)) / 1000 };
}

/** Handles one stage message. Never throws for a message that can never succeed; throws to have SQS retry. */
export async function handleStageMessage(message: StageMessage): Promise<void> {
  const job = await getJob(message.job_id);
  if (!job || job.run_id !== message.run_id || !isProcessing(job.status) || job.stage_name !== message.stage || !job.pipeline) {
    logger.info('stage message dropped: stale or duplicate', { ...message, status: job?.status, stage_name: job?.stage_name });
    return;
  }
  const pipeline = getPipeline(job.pipeline);
  const stage = pipeline && stageOf(pipeline, message.stage);
  if (!pipeline || !stage) {
    await failJob(job, `The ${job.pipeline} pipeline is not available in this deployment.`);
    return;
  }
  const runner = randomUUID();
  const now = new Date().toISOString();
  const claimed = await updateJob(job.id, {
    set: {
      status: stage.def.status,
      current_stage: stage.def.name,
      progress_pct: stage.def.progress[0],
      stage_state: 'running',
      stage_runner: runner,
      stage_lease_until: leaseUntil(),
      heartbeat_at: now,
      [`stage_timings.${stage.def.name}`]: { started_at: now, finished_at: null, seconds: null },
    },
    condition: 'run_id = :run AND stage_name = :stage AND stage_state = :queued',
    values: { ':run': job.run_id, ':stage': stage.def.name, ':queued': 'queued' },
  });
  if (!claimed) {
    await handlePossibleInterruption(job.id, message.run_id);
    return;
  }

  const ctx = contextFor(claimed, stage.def);
  await ctx.log.info(`Stage ${stage.def.name} started`);
  let outcome;
  try {
    outcome = await withHeartbeat(ctx, () => stage.def.run(ctx));
  } catch (err) {
    await failJob(claimed, err instanceof PipelineFailure ? err.message : `The ${stage.def.name} stage failed: ${errorText(err)}`);
    return;
  }

  if (outcome.kind === 'fanout' && outcome.units > 0) {
    const inFlight = Math.min(Math.max(1, outcome.concurrency), outcome.units);
    const fanning = await updateJob(job.id, {
      set: { ...(outcome.set ?? {}), stage_state: 'fanout', fanout_total: outcome.units, fanout_next: inFlight, fanout_done: 0, fanout_progress: stage.def.progress },
      condition: 'run_id = :run AND stage_runner = :runner AND stage_state = :running',
      values: { ':run': claimed.run_id, ':runner': runner, ':running': 'running' },
    });
    if (!fanning) return; // the lease was lost (taken over after expiry); the new owner carries on
    await ctx.log.info(`Stage ${stage.def.name}: ${outcome.units} units, ${inFlight} at a time`);
    await Promise.all(Array.from({ length: inFlight }, (_, index) => sendUnit(fanning, index)));
    return;
  }
  await advance(claimed, pipeline, stage.index, { runner, set: outcome.set });
}

/**
 * Moves the job from stage `index` to the next one (or completes it), as one
 * conditional write: only the lease holder of a running stage, or the unit
 * that finished a fan-out, can win it.
 */
async function advance(job: Job, pipeline: PipelineDefinition, index: number, how: { runner?: string; set?: Partial<Job> }): Promise<void> {
  const def = pipeline.stages[index];
  const now = new Date().toISOString();
  const next = pipeline.stages[index + 1];
  const guard = how.runner
    ? { condition: 'run_id = :run AND stage_name = :stage AND stage_state = :running AND stage_runner = :runner', values: { ':run': job.run_id, ':stage': def.name, ':running': 'running', ':runner': how.runner } }
    : { condition: 'run_id = :run AND stage_name = :stage AND stage_state = :fanout', values: { ':run': job.run_id, ':stage': def.name, ':fanout': 'fanout' } };
  const finishedTiming = { [`stage_timings.${def.name}`]: timing(job, def.name, now) };
  if (!next) {
    const closing = await updateJob(job.id, { set: { ...(how.set ?? {}), ...finishedTiming, stage_state: 'done', progress_pct: def.progress[1] }, ...guard });
    if (closing) await completeJob(closing, pipeline);
    return;
  }
  const moved = await updateJob(job.id, {
    set: {
      ...(how.set ?? {}),
      ...finishedTiming,
      progress_pct: def.progress[1],
      ...queuedStage(next.name),
      heartbeat_at: now,
    },
    ...guard,
  });
  if (!moved) return;
  await new JobLog(job.id).info(`Stage ${def.name} finished; next: ${next.name}`);
  await sendStage(moved);
}

// ---------------------------------------------------------------------------
// Fan-out units
// ---------------------------------------------------------------------------

const unitKey = (job: Pick<Job, 'id' | 'run_id'>, stage: string, index: number) => ({ pk: `JOBUNIT#${job.id}`, sk: `${job.run_id}#${stage}#${String(index).padStart(6, '0')}` });

export interface UnitRecord {
  state: 'running' | 'done';
  outcome?: 'ok' | 'failed';
  runner: string;
  lease_until: string;
  attempts: number;
  error?: string;
}

/** Claims a unit: free, or running under an expired lease (its worker died). */
async function claimUnit(job: Job, stage: string, index: number, runner: string): Promise<UnitRecord | null> {
  const now = new Date().toISOString();
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: unitKey(job, stage, index),
        UpdateExpression: 'SET #state = :running, runner = :runner, lease_until = :lease, entity = :entity ADD attempts :one',
        ConditionExpression: 'attribute_not_exists(pk) OR (#state = :running AND lease_until < :now)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':running': 'running', ':runner': runner, ':lease': leaseUntil(), ':now': now, ':entity': 'JobUnit', ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes as UnitRecord;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** Marks the claimed unit done; false if another runner took it over meanwhile. */
async function finishUnit(job: Job, stage: string, index: number, runner: string, outcome: 'ok' | 'failed', error?: string): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: unitKey(job, stage, index),
        UpdateExpression: 'SET #state = :done, outcome = :outcome, finished_at = :now' + (error ? ', #error = :error' : ''),
        ConditionExpression: '#state = :running AND runner = :runner',
        ExpressionAttributeNames: { '#state': 'state', ...(error ? { '#error': 'error' } : {}) },
        ExpressionAttributeValues: { ':done': 'done', ':running': 'running', ':runner': runner, ':outcome': outcome, ':now': new Date().toISOString(), ...(error ? { ':error': error.slice(0, 500) } : {}) },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

/** Lets another delivery take the unit at once (used before asking SQS to retry it). */
async function releaseUnit(job: Job, stage: string, index: number, runner: string): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: unitKey(job, stage, index),
        UpdateExpression: 'SET lease_until = :past',
        ConditionExpression: '#state = :running AND runner = :runner',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':past': new Date(0).toISOString(), ':running': 'running', ':runner': runner },
      }),
    )
    .catch(() => undefined);
}

export async function getUnit(job: Pick<Job, 'id' | 'run_id'>, stage: string, index: number): Promise<UnitRecord | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: unitKey(job, stage, index), ConsistentRead: true }));
  return (Item as UnitRecord | undefined) ?? null;
}

/** Handles one unit message; `attempt` is the SQS receive count. */
export async function handleUnitMessage(message: UnitMessage, attempt = 1): Promise<void> {
  const job = await getJob(message.job_id);
  if (!job || job.run_id !== message.run_id || job.stage_name !== message.stage || job.stage_state !== 'fanout' || !job.pipeline) {
    logger.info('unit message dropped: stale or duplicate', { ...message, stage_state: job?.stage_state });
    return;
  }
  const pipeline = getPipeline(job.pipeline);
  const stage = pipeline && stageOf(pipeline, message.stage);
  if (!pipeline || !stage?.def.unit) {
    await failJob(job, `The ${job.pipeline} pipeline cannot run units of ${message.stage}.`);
    return;
  }
  const runner = randomUUID();
  const unit = await claimUnit(job, message.stage, message.index, runner);
  if (!unit) return; // done already, or running under a live lease elsewhere

  const ctx = contextFor(job, stage.def);
  let outcome: 'ok' | 'failed' = 'ok';
  let error: string | undefined;
  try {
    await withHeartbeat(ctx, () => stage.def.unit!(ctx, message.index));
  } catch (err) {
    error = errorText(err);
    if (unit.attempts < UNIT_MAX_ATTEMPTS) {
      await ctx.log.warn(`Unit ${message.index} of ${message.stage} failed (attempt ${unit.attempts}); retrying: ${error}`);
      await releaseUnit(job, message.stage, message.index, runner);
      throw err; // SQS redelivers it
    }
    outcome = 'failed';
    await ctx.log.error(`Unit ${message.index} of ${message.stage} failed ${unit.attempts} times; giving up on it: ${error}`);
  }
  if (!(await finishUnit(job, message.stage, message.index, runner, outcome, error))) return;
  await fanIn(job, pipeline, stage.index);
}

/** Counts a finished unit, dispatches the next one, and advances the job after the last. */
async function fanIn(job: Job, pipeline: PipelineDefinition, stageIndex: number): Promise<void> {
  const counted = await updateJob(job.id, {
    add: { fanout_done: 1, fanout_next: 1 },
    set: { heartbeat_at: new Date().toISOString() },
    condition: 'run_id = :run AND stage_name = :stage AND stage_state = :fanout',
    values: { ':run': job.run_id, ':stage': pipeline.stages[stageIndex].name, ':fanout': 'fanout' },
  });
  if (!counted) return;
  const toDispatch = counted.fanout_next - 1;
  if (toDispatch < counted.fanout_total) await sendUnit(counted, toDispatch);
  // Progress within a fan-out is derived from these counters when the job is read (jobProgress).
  if (counted.fanout_done === counted.fanout_total) await advance(counted, pipeline, stageIndex, {});
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Used by the watchdog to resend units of a fan-out whose messages were lost. */
export async function resendUnfinishedUnits(job: Job): Promise<number> {
  let resent = 0;
  for (let index = 0; index < Math.min(job.fanout_next, job.fanout_total); index++) {
    const unit = await getUnit(job, job.stage_name as string, index);
    if (unit?.state === 'done') continue;
    if (unit?.state === 'running' && unit.lease_until > new Date().toISOString()) continue;
    await sendUnit(job, index);
    resent++;
  }
  return resent;
}
