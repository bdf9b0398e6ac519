/**
 * The media job totals (spec: Admin: GET /api/admin/logs and
 * /api/admin/api-requests return `total`): how many media jobs exist, and how
 * many of them are of each media type and how many made AI calls. Counted when a job row is written, not when a
 * list is read, so a total costs the same at 20 jobs or 20 million. Pure.
 *
 * Exactness rests on two flags on the job row, each set in the same
 * transaction that adds to a total and checked by the one that takes away:
 *   in_job_totals          set when the job is created (or counted by the
 *                          day-bucket migration); the job is in `jobs`;
 *   with_ai_calls_counted  set by the job's first AI call; the job is in
 *                          `jobs_with_ai_calls`.
 * A repeated create finds the row and adds nothing; a repeated delete finds
 * none and takes nothing.
 *
 * The totals are sharded: JOB_TOTAL_SHARDS rows in their own partitions, the
 * job's id choosing one, so creates spread over them instead of meeting on
 * one hot row (and rarely collide in a transaction).
 */
import type { Job } from './job-record-rules';

export const JOB_TOTAL_SHARDS = 16;

const JOB_TOTALS = ['jobs', 'jobs_with_ai_calls', 'jobs__video', 'jobs__photo', 'jobs__audio'] as const;
export type JobTotal = (typeof JOB_TOTALS)[number];
export type JobTotals = Record<JobTotal, number>;

/** The total of the jobs of one media type. */
export function typeTotal(type: string): JobTotal | null {
  const name = `jobs__${type}`;
  return (JOB_TOTALS as readonly string[]).includes(name) ? (name as JobTotal) : null;
}

/** The flags a job row carries about the totals it is in. */
export interface JobTotalsFlags {
  in_job_totals?: boolean;
  with_ai_calls_counted?: boolean;
}

/** Media jobs are counted: a contents-list reader or a capture runner (reads_batch_id) is listed nowhere. */
export function isTotalledJob(job: Pick<Job, 'reads_batch_id'>): boolean {
  return !job.reads_batch_id;
}

/** The shard a job is counted in: fixed by its id (FNV-1a), so its delete takes from the row its create added to. */
export function totalsShardOf(jobId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < jobId.length; i++) {
    hash ^= jobId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % JOB_TOTAL_SHARDS;
}

/** What a job row counted as its flags say adds to the totals (negated, what its delete takes away). */
export function totalsOf(job: JobTotalsFlags & Pick<Job, 'source_type'>): Partial<JobTotals> {
  if (!job.in_job_totals) return {};
  const type = typeTotal(job.source_type);
  return {
    jobs: 1,
    ...(type ? { [type]: 1 } : {}),
    ...(job.with_ai_calls_counted ? { jobs_with_ai_calls: 1 } : {}),
  };
}

/** The totals, from the shard rows there are (a shard nothing was counted in has no row). */
export function sumTotals(rows: readonly Partial<Record<string, unknown>>[]): JobTotals {
  const totals = Object.fromEntries(JOB_TOTALS.map((name) => [name, 0])) as JobTotals;
  for (const row of rows) for (const name of JOB_TOTALS) totals[name] += Number(row[name] ?? 0);
  return totals;
}
