/**
 * A run whose first stage is run by the request that opens it (a send's
 * charge and remote sync, answered in the request): the run is written open
 * with that stage already taken by the request (`running`, its lease the
 * request's), so a request that dies is found by the watchdog once the lease
 * has run out, like any stage whose worker died; when the request is done
 * it moves the run on to the stage the workers run.
 *
 * An HTTP function ends at 29 s, whatever its work still needs. A stage the
 * workers can carry on from its record is raced against the request's time
 * (`withinRequestTime`); when time runs short the request hands the stage to
 * the workers at once (`handRequestStageToWorkers`) and answers that the run
 * goes on, instead of being cut off and leaving the run to wait out its lease.
 */
import { randomUUID } from 'node:crypto';
import { newRunTraceparent } from '../observability/job-trace';
import { logger } from '../observability/logger';
import { advance, heldByRunner } from './advance';
import type { RunPipeline } from './pipeline';
import type { RunKind, RunRecord } from './run-kind';
import { queuedStage, sendStage } from './transitions';

/** The engine's fields of a run opened by a request that runs its first stage under `runner` for `leaseMs`. */
export function requestStageFields(pipeline: RunPipeline, runner: string, leaseMs: number, now = new Date()) {
  const at = now.toISOString();
  const first = pipeline.stages[0];
  return {
    pipeline: pipeline.name,
    run_id: randomUUID(),
    trace_parent: newRunTraceparent(),
    current_stage: first.name,
    progress_pct: first.progress[0],
    ...queuedStage(first.name),
    stage_state: 'running' as const,
    stage_runner: runner,
    stage_lease_until: new Date(now.getTime() + leaseMs).toISOString(),
    heartbeat_at: at,
    recovery_attempts: 0,
    stage_timings: { [first.name]: { started_at: at, finished_at: null, seconds: null } },
    started_at: at,
    updated_at: at,
  } satisfies Omit<RunRecord, 'id' | 'status' | 'created_at'>;
}

/**
 * The request is done with the first stage: one conditional write (it still
 * holds the stage) sets `set` and queues the next stage, whose message
 * follows. False when the run had moved on (the watchdog failed it after its
 * lease ran out).
 */
export function finishRequestStage(
  kind: RunKind,
  record: RunRecord,
  pipeline: RunPipeline,
  how: { runner: string; set?: Record<string, unknown>; beforeNext?: () => void },
): Promise<boolean> {
  return advance(kind, record, pipeline, 0, how);
}

/** What a request keeps for its answer and the hand-over after the raced work: the stage's time is then up. */
export type RaceOutcome<T> = { finished: true; value: T } | { finished: false };

/**
 * Runs `work` until `until` (epoch ms; all the time it needs when undefined).
 * Past it the work is left to go on in the background, its outcome
 * only logged: each of its writes is conditional on still holding the stage,
 * so once the stage is handed over it stops at its next one, and each of its
 * remote calls is safe to make twice.
 */
export async function withinRequestTime<T>(
  work: Promise<T>,
  until: number | undefined,
  logContext: Record<string, unknown>,
): Promise<RaceOutcome<T>> {
  if (until === undefined) return { finished: true, value: await work };
  let timer: NodeJS.Timeout | undefined;
  const timeUp = new Promise<RaceOutcome<T>>((resolve) => {
    timer = setTimeout(() => resolve({ finished: false }), Math.max(0, until - Date.now()));
  });
  try {
    const outcome = await Promise.race([work.then((value) => ({ finished: true as const, value })), timeUp]);
    if (!outcome.finished)
      work.catch((err) =>
        logger.warn('a stage handed to the workers ended in its request', {
          ...logContext,
          error: (err as Error)?.message,
        }),
      );
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The request is out of time before its stage is done: one conditional write
 * (it still holds the stage) queues that same stage for the workers, whose
 * message follows; a worker carries the stage on from the run's record. False
 * when the run had moved on (the request's own closing or failing write won).
 */
export async function handRequestStageToWorkers(kind: RunKind, record: RunRecord, runner: string): Promise<boolean> {
  const stage = record.stage_name as string;
  const moved = await kind.update(record.id, {
    set: { ...queuedStage(stage), heartbeat_at: new Date().toISOString() },
    ...heldByRunner(record, stage, runner),
  });
  if (!moved) return false;
  await kind.log(record.id).warn(`Stage ${stage} handed to the workers: its request ran out of time`);
  await sendStage(kind.name, moved);
  return true;
}
