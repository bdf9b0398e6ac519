/**
 * A run whose first stage is run by the request that opens it (a send's
 * charge and remote sync, answered in the request): the run is written open
 * with that stage already taken by the request (`running`, its lease the
 * request's), so a request that dies is found by the watchdog once the lease
 * has run out, like any stage whose worker died; when the request is done
 * it moves the run on to the stage the workers run.
 */
import { randomUUID } from 'node:crypto';
import { newRunTraceparent } from '../observability/job-trace';
import { advance } from './advance';
import type { RunPipeline } from './pipeline';
import type { RunKind, RunRecord } from './run-kind';
import { queuedStage } from './transitions';

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
