/**
 * Job status rules (spec: ProcessingJob > States and transitions): the status
 * sets that decide what may happen to a job, and its progress figure. Pure.
 */

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

/** States from which POST /api/jobs/{id}/process may start a job. */
export const STARTABLE_STATUSES: readonly JobStatus[] = ['awaiting_grouping', 'awaiting_confirmation', 'error'];

export type SourceType = 'video' | 'photo' | 'audio';

/** Engine stage state of a job (lib/orchestrator); 'branches' while a stage's branches run side by side. */
export type StageState = 'queued' | 'running' | 'fanout' | 'branches' | 'done';

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
