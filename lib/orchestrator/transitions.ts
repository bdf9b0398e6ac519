/**
 * Moving a job between stages: the messages that carry a job to its next
 * stage or unit, and the conditional write that advances it. Shared by the
 * engine (engine.ts) and the watchdog (recovery.ts), which therefore do not
 * import each other.
 */
import * as z from 'zod';
import { updateJob, type Job } from '../jobs/job-store';
import { JobLog } from '../jobs/log-store';
import { recordStageDuration } from '../observability/metrics';
import { dispatch } from '../queue/dispatch';
import { isBranchStage, type PipelineDefinition, type StageDefinition } from './pipeline';
import { completeJob } from './terminal';

export const stageMessage = z.object({
  job_id: z.uuid(),
  run_id: z.string().min(1),
  stage: z.string().min(1),
  /** Set for one branch of a branch stage (a unit message of a branch's fan-out carries it too). */
  branch: z.string().min(1).optional(),
});
export const unitMessage = stageMessage.extend({ index: z.number().int().min(0) });
export type StageMessage = z.output<typeof stageMessage>;
export type UnitMessage = z.output<typeof unitMessage>;

/** The engine fields of a stage waiting for its message (nothing leased, no fan-out). */
export function queuedStage(name: string): Partial<Job> {
  return {
    stage_name: name,
    stage_state: 'queued',
    stage_runner: null,
    stage_lease_until: null,
    fanout_total: 0,
    fanout_next: 0,
    fanout_done: 0,
    branches: null,
    branches_done: 0,
  };
}

export function stageOf(pipeline: PipelineDefinition, name: string): { def: StageDefinition; index: number } | null {
  const index = pipeline.stages.findIndex((s) => s.name === name);
  return index < 0 ? null : { def: pipeline.stages[index], index };
}

/** Every message of a run carries the run's trace (lib/observability/job-trace.ts). */
const ofRun = (job: Job) => ({ traceparent: job.trace_parent });

export async function sendStage(job: Job): Promise<void> {
  await dispatch(
    'stages',
    { job_id: job.id, run_id: job.run_id as string, stage: job.stage_name as string } satisfies StageMessage,
    ofRun(job),
  );
}

/** The message that runs one branch of the job's current (branch) stage. */
export async function sendBranch(job: Job, branch: string): Promise<void> {
  await dispatch(
    'stages',
    { job_id: job.id, run_id: job.run_id as string, stage: job.stage_name as string, branch } satisfies StageMessage,
    ofRun(job),
  );
}

export async function sendUnit(job: Job, index: number, branch?: string): Promise<void> {
  await dispatch(
    'units',
    {
      job_id: job.id,
      run_id: job.run_id as string,
      stage: job.stage_name as string,
      ...(branch ? { branch } : {}),
      index,
    } satisfies UnitMessage,
    ofRun(job),
  );
}

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
