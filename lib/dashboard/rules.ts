/**
 * Dashboard metrics arithmetic (spec: GET /api/dashboard/metrics). Pure.
 *
 * A job counts once it is settled (not in a processing state) and still holds
 * items. Its processing time is the span of its last run, from started_at to
 * finished_at, as GET /api/jobs/{id}/metrics reports it; a job with no
 * recorded run (items added by hand) adds its items but no time.
 */
import { isProcessing, type JobStatus } from '../jobs/job-rules';

/** The job fields the metrics read, with the job's live item count (archived items excluded). */
export interface MeasuredJob {
  status: JobStatus;
  started_at: string | null;
  finished_at: string | null;
  items: number;
}

export interface DashboardMetrics {
  items_cataloged: number;
  processing_seconds: number;
  seconds_per_item: number | null;
}

/** Whether the job's items are worth counting at all: a running job's count is still moving. */
export const isSettled = (status: JobStatus) => !isProcessing(status);

/** Seconds between the start and the end of the job's last run; 0 when either is missing or they are out of order. */
export function runSeconds(job: Pick<MeasuredJob, 'started_at' | 'finished_at'>): number {
  if (!job.started_at || !job.finished_at) return 0;
  const seconds = (Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000;
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}

/** Rounded to tenths of a second, as shown. */
const tenths = (seconds: number) => Math.round(seconds * 10) / 10;

export function dashboardMetrics(jobs: MeasuredJob[]): DashboardMetrics {
  let items = 0;
  let seconds = 0;
  for (const job of jobs) {
    if (!isSettled(job.status) || job.items <= 0) continue;
    items += job.items;
    seconds += runSeconds(job);
  }
  return {
    items_cataloged: items,
    processing_seconds: tenths(seconds),
    seconds_per_item: items > 0 ? tenths(seconds / items) : null,
  };
}
