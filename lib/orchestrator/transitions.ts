/**
 * The messages that carry a run to its next stage or unit, and the engine
 * fields of a stage waiting for its message. Shared by the start
 * (start.ts), the engine (engine.ts), the watchdog (recovery.ts) and the
 * conditional write that advances a run (advance.ts).
 *
 * A message names its run's kind and subject (run-kind.ts). A job's messages
 * keep naming the job as `job_id`, as they did before there were kinds, so a
 * message queued by either side of a deploy is read by the other.
 */
import * as z from 'zod';
import { dispatch } from '../queue/dispatch';
import type { AnyStageDefinition, RunPipeline } from './pipeline';
import type { RunRecord } from './run-kind';

const runMessageFields = z.object({
  kind: z.string().min(1).optional(),
  id: z.uuid().optional(),
  job_id: z.uuid().optional(),
  run_id: z.string().min(1),
  stage: z.string().min(1),
  /** Set for one branch of a branch stage (a unit message of a branch's fan-out carries it too). */
  branch: z.string().min(1).optional(),
});
const namesItsSubject = (m: { id?: string; job_id?: string }) => Boolean(m.id ?? m.job_id);
const SUBJECT_MISSING = { message: 'a stage or unit message names its subject (id, or job_id for a job)' };
const normalized = <M extends z.output<typeof runMessageFields>>({ kind, id, job_id, ...rest }: M) => ({
  ...rest,
  kind: kind ?? 'job',
  id: (id ?? job_id) as string,
});

export const stageMessage = runMessageFields.refine(namesItsSubject, SUBJECT_MISSING).transform(normalized);
export const unitMessage = runMessageFields
  .extend({ index: z.number().int().min(0) })
  .refine(namesItsSubject, SUBJECT_MISSING)
  .transform(normalized);
export type StageMessage = z.output<typeof stageMessage>;
export type UnitMessage = z.output<typeof unitMessage>;

/** The engine fields of a stage waiting for its message (nothing leased, no fan-out). */
export function queuedStage(name: string) {
  return {
    stage_name: name,
    stage_state: 'queued' as const,
    stage_runner: null,
    stage_lease_until: null,
    fanout_total: 0,
    fanout_next: 0,
    fanout_done: 0,
    branches: null,
    branches_done: 0,
  };
}

export function stageOf(pipeline: RunPipeline, name: string): { def: AnyStageDefinition; index: number } | null {
  const index = pipeline.stages.findIndex((s) => s.name === name);
  return index < 0 ? null : { def: pipeline.stages[index], index };
}

/** The subject a message of `record`'s run names: a job as job_id, any other kind with its kind. */
const subjectOf = (kind: string, record: RunRecord) =>
  kind === 'job' ? { job_id: record.id } : { kind, id: record.id };

/** Every message of a run carries the run's trace (lib/observability/job-trace.ts). */
const ofRun = (record: RunRecord) => ({ traceparent: record.trace_parent });

export async function sendStage(kind: string, record: RunRecord): Promise<void> {
  await dispatch(
    'stages',
    { ...subjectOf(kind, record), run_id: record.run_id as string, stage: record.stage_name as string },
    ofRun(record),
  );
}

/** The message that runs one branch of the run's current (branch) stage. */
export async function sendBranch(kind: string, record: RunRecord, branch: string): Promise<void> {
  await dispatch(
    'stages',
    { ...subjectOf(kind, record), run_id: record.run_id as string, stage: record.stage_name as string, branch },
    ofRun(record),
  );
}

export async function sendUnit(kind: string, record: RunRecord, index: number, branch?: string): Promise<void> {
  await dispatch(
    'units',
    {
      ...subjectOf(kind, record),
      run_id: record.run_id as string,
      stage: record.stage_name as string,
      ...(branch ? { branch } : {}),
      index,
    },
    ofRun(record),
  );
}
