/**
 * The conditional write that moves a run from one stage to the next, or
 * completes it after its last stage (its kind's completion: run-kind.ts).
 * Shared by the engine (engine.ts, branches.ts) and the watchdog
 * (recovery.ts), which therefore do not import each other.
 */
import { recordStageDuration } from '../observability/metrics';
import { isBranchStage, type RunPipeline } from './pipeline';
import type { RunKind, RunRecord } from './run-kind';
import { queuedStage, sendStage } from './transitions';

export function timing(record: Pick<RunRecord, 'stage_timings'>, stage: string, finishedAt: string) {
  const started = record.stage_timings?.[stage]?.started_at ?? finishedAt;
  return {
    started_at: started,
    finished_at: finishedAt,
    seconds: (Date.parse(finishedAt) - Date.parse(started)) / 1000,
  };
}

/** The condition of a write only the runner holding the run's running stage `stage` can win. */
export function heldByRunner(record: Pick<RunRecord, 'run_id'>, stage: string, runner: string) {
  return {
    condition: 'run_id = :run AND stage_name = :stage AND stage_state = :running AND stage_runner = :runner',
    values: { ':run': record.run_id, ':stage': stage, ':running': 'running', ':runner': runner },
  };
}

/**
 * Moves the run from stage `index` to the next one (or completes it), as one
 * conditional write: only the lease holder of a running stage, whoever
 * closes a finished fan-out (its last unit, or the watchdog), or whoever
 * joins a branch stage whose branches are all done, can win it.
 * Returns false when another writer won or the run moved on.
 */
export async function advance(
  kind: RunKind,
  record: RunRecord,
  pipeline: RunPipeline,
  index: number,
  how: {
    runner?: string;
    set?: Record<string, unknown>;
    /** Called between the write that queued the next stage and its message (a fault point of the caller's flow). */
    beforeNext?: () => void;
  },
): Promise<boolean> {
  const def = pipeline.stages[index];
  const now = new Date().toISOString();
  const next = pipeline.stages[index + 1];
  const guard = isBranchStage(def)
    ? {
        condition: 'run_id = :run AND stage_name = :stage AND stage_state = :in_branches AND branches_done = :all',
        values: { ':run': record.run_id, ':stage': def.name, ':in_branches': 'branches', ':all': def.branches.length },
      }
    : how.runner
      ? heldByRunner(record, def.name, how.runner)
      : {
          condition: 'run_id = :run AND stage_name = :stage AND stage_state = :fanout',
          values: { ':run': record.run_id, ':stage': def.name, ':fanout': 'fanout' },
        };
  const stageTiming = timing(record, def.name, now);
  const finishedTiming = { [`stage_timings.${def.name}`]: stageTiming };
  if (!next) {
    const closing = await kind.update(record.id, {
      set: { ...(how.set ?? {}), ...finishedTiming, stage_state: 'done', progress_pct: def.progress[1] },
      ...guard,
    });
    if (closing) {
      recordStageDuration(pipeline.name, def.name, stageTiming.seconds);
      await kind.complete(closing, pipeline);
    }
    return Boolean(closing);
  }
  const moved = await kind.update(record.id, {
    set: {
      ...(how.set ?? {}),
      ...finishedTiming,
      progress_pct: def.progress[1],
      ...queuedStage(next.name),
      heartbeat_at: now,
    },
    ...guard,
  });
  if (!moved) return false;
  recordStageDuration(pipeline.name, def.name, stageTiming.seconds);
  await kind.log(record.id).info(`Stage ${def.name} finished; next: ${next.name}`);
  how.beforeNext?.();
  await sendStage(kind.name, moved);
  return true;
}
