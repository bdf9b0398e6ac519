/**
 * The conditional write that moves a job from one stage to the next, or
 * completes it after its last stage (terminal.ts). Shared by the engine
 * (engine.ts, branches.ts) and the watchdog (recovery.ts), which therefore
 * do not import each other.
 */
import { updateJob, type Job } from '../jobs/job-store';
import { JobLog } from '../jobs/log-store';
import { recordStageDuration } from '../observability/metrics';
import { isBranchStage, type PipelineDefinition } from './pipeline';
import { completeJob } from './terminal';
import { queuedStage, sendStage } from './transitions';

export function timing(job: Job, stage: string, finishedAt: string) {
  const started = job.stage_timings?.[stage]?.started_at ?? finishedAt;
  return {
    started_at: started,
    finished_at: finishedAt,
    seconds: (Date.parse(finishedAt) - Date.parse(started)) / 1000,
  };
}

/**
 * Moves the job from stage `index` to the next one (or completes it), as one
 * conditional write: only the lease holder of a running stage, whoever
 * closes a finished fan-out (its last unit, or the watchdog), or whoever
 * joins a branch stage whose branches are all done, can win it.
 * Returns false when another writer won or the job moved on.
 */
export async function advance(
  job: Job,
  pipeline: PipelineDefinition,
  index: number,
  how: { runner?: string; set?: Partial<Job> },
): Promise<boolean> {
  const def = pipeline.stages[index];
  const now = new Date().toISOString();
  const next = pipeline.stages[index + 1];
  const guard = isBranchStage(def)
    ? {
        condition: 'run_id = :run AND stage_name = :stage AND stage_state = :in_branches AND branches_done = :all',
        values: { ':run': job.run_id, ':stage': def.name, ':in_branches': 'branches', ':all': def.branches.length },
      }
    : how.runner
      ? {
          condition: 'run_id = :run AND stage_name = :stage AND stage_state = :running AND stage_runner = :runner',
          values: { ':run': job.run_id, ':stage': def.name, ':running': 'running', ':runner': how.runner },
        }
      : {
          condition: 'run_id = :run AND stage_name = :stage AND stage_state = :fanout',
          values: { ':run': job.run_id, ':stage': def.name, ':fanout': 'fanout' },
        };
  const stageTiming = timing(job, def.name, now);
  const finishedTiming = { [`stage_timings.${def.name}`]: stageTiming };
  if (!next) {
    const closing = await updateJob(job.id, {
      set: { ...(how.set ?? {}), ...finishedTiming, stage_state: 'done', progress_pct: def.progress[1] },
      ...guard,
    });
    if (closing) {
      recordStageDuration(pipeline.name, def.name, stageTiming.seconds);
      await completeJob(closing, pipeline);
    }
    return Boolean(closing);
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
  if (!moved) return false;
  recordStageDuration(pipeline.name, def.name, stageTiming.seconds);
  await new JobLog(job.id).info(`Stage ${def.name} finished; next: ${next.name}`);
  await sendStage(moved);
  return true;
}
