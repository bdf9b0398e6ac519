/**
 * The messages that carry a job to its next stage or unit, and the engine
 * fields of a stage waiting for its message. Shared by the start
 * (start.ts), the engine (engine.ts), the watchdog (recovery.ts) and the
 * conditional write that advances a job (advance.ts).
 */
import * as z from 'zod';
import type { Job } from '../jobs/job-store';
import { dispatch } from '../queue/dispatch';
import type { PipelineDefinition, StageDefinition } from './pipeline';

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
