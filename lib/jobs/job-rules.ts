/**
 * Job status rules (spec: ProcessingJob > States and transitions): the status
 * sets that decide what may happen to a job, and its progress figure. Pure.
 */

import type { StageState } from '../db/run-state';

export const JOB_STATUSES = [
  'pending',
  'extracting',
  'transcribing',
  'segmenting',
  'analyzing',
  'synthesizing',
  'complete',
  'error',
  'awaiting_grouping',
  'awaiting_confirmation',
  'importing_pdf',
  // Ours: a capture import's runner (a job of the claim in no room, never listed) downloads in it.
  'importing',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The statuses pending through synthesizing are the processing states. */
export const PROCESSING_STATUSES: readonly JobStatus[] = [
  'pending',
  'extracting',
  'transcribing',
  'segmenting',
  'analyzing',
  'synthesizing',
];
export const isProcessing = (status: JobStatus) => PROCESSING_STATUSES.includes(status);

/**
 * Statuses a job is prepared in before it can be processed: importing_pdf
 * while its contents lists are read. The engine runs the preparing pipeline's
 * stages in it, and the job leaves it, read or not, for the status after it:
 * awaiting_grouping, with whatever photos were found (our exit rule: the read
 * finishing, successfully or not, always hands the job to the user).
 */
export const PREPARING_STATUSES: readonly JobStatus[] = ['importing_pdf', 'importing'];
export const statusAfterPreparing = (job: { reads_batch_id?: string | null }): JobStatus =>
  // A claim-level import's reader hands its photos to per-room jobs: it is done once they exist.
  job.reads_batch_id ? 'complete' : 'awaiting_grouping';

/** Statuses the engine runs a job's stages in: the processing ones and the preparing ones. */
export const RUNNING_STATUSES: readonly JobStatus[] = [...PROCESSING_STATUSES, ...PREPARING_STATUSES];
export const isRunning = (status: JobStatus) => RUNNING_STATUSES.includes(status);

/** States from which POST /api/jobs/{id}/process may start a job. */
export const STARTABLE_STATUSES: readonly JobStatus[] = ['awaiting_grouping', 'awaiting_confirmation', 'error'];

export type SourceType = 'video' | 'photo' | 'audio';

/** The fields of a job its progress is computed from. */
export interface JobProgressFields {
  progress_pct: number;
  stage_state: StageState | null;
  fanout_total: number;
  fanout_done: number;
  fanout_progress?: [number, number] | null;
}

/** progress_pct, or during a fan-out, the share of units done mapped onto the stage's range. */
export function jobProgress(job: JobProgressFields): number {
  if (job.stage_state !== 'fanout' || !job.fanout_progress || !(job.fanout_total > 0)) return job.progress_pct;
  const [from, to] = job.fanout_progress;
  return Math.round(from + ((to - from) * Math.min(job.fanout_done, job.fanout_total)) / job.fanout_total);
}
