/**
 * What a step (a stage, or one branch of a branch stage) runs with: its
 * context (the job, its log, a heartbeat) and the timer that keeps the job's
 * heartbeat fresh while it runs. Shared by engine.ts and branches.ts.
 */
import { updateJob, type Job } from '../jobs/job-store';
import { JobLog } from '../jobs/log-store';
import { branchesProgress } from './branch-rules';
import type { BranchStage, StageContext, StageDefinition } from './pipeline';

const HEARTBEAT_MS = 15_000;

const sameRun = (job: Pick<Job, 'run_id'>) => ({ condition: 'run_id = :run', values: { ':run': job.run_id } });

export function contextFor(job: Job, def: StageDefinition): StageContext {
  const log = new JobLog(job.id);
  const [from, to] = def.progress;
  return {
    job,
    log,
    heartbeat: async (fraction?: number) => {
      const set: Partial<Job> = { heartbeat_at: new Date().toISOString() };
      if (fraction !== undefined)
        set.progress_pct = Math.round(from + (to - from) * Math.min(1, Math.max(0, fraction)));
      await updateJob(job.id, { set, ...sameRun(job) });
    },
  };
}

/**
 * A branch's context: its heartbeat's fraction is the branch's own progress;
 * the job's progress is the mean over the branches, and only ever rises
 * (branches beat independently, so a write computed from an older read must
 * not lower it).
 */
export function branchContextFor(job: Job, stage: BranchStage, branch: string): StageContext {
  const inStage = {
    condition: 'run_id = :run AND stage_name = :stage AND stage_state = :in_branches',
    values: { ':run': job.run_id, ':stage': stage.name, ':in_branches': 'branches' },
  };
  return {
    job,
    log: new JobLog(job.id),
    heartbeat: async (fraction?: number) => {
      const set: Record<string, unknown> = { heartbeat_at: new Date().toISOString() };
      if (fraction !== undefined) set[`branches.${branch}.fraction`] = Math.min(1, Math.max(0, fraction));
      const beaten = await updateJob(job.id, { set, ...inStage });
      if (beaten && fraction !== undefined) await raiseBranchProgress(beaten, stage);
    },
  };
}

/** Moves the job's progress up to what its branches add up to, never down. */
export async function raiseBranchProgress(job: Job, stage: BranchStage): Promise<void> {
  const pct = branchesProgress(stage, job.branches);
  await updateJob(job.id, {
    set: { progress_pct: pct },
    condition: 'run_id = :run AND stage_name = :stage AND stage_state = :in_branches AND progress_pct < :pct',
    values: { ':run': job.run_id, ':stage': stage.name, ':in_branches': 'branches', ':pct': pct },
  });
}

/** Runs `work` while a timer keeps the job's heartbeat fresh. */
export async function withHeartbeat<T>(ctx: StageContext, work: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => void ctx.heartbeat().catch(() => undefined), HEARTBEAT_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
