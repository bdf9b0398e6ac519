/**
 * Media jobs written straight to the table as the job store writes them, and
 * counted in the job totals as its create and first AI call count them
 * (lib/jobs/job-totals-rules.ts): for suites and benchmarks that need many
 * jobs in given states and days without running the engine. The totals are
 * added per shard after the rows (one write per shard, not a transaction per
 * job): nothing else writes these jobs meanwhile.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { putRows } from '../../lib/db/batch';
import { db } from '../../lib/db/client';
import { jobRowOf } from '../../lib/jobs/job-store';
import type { Job } from '../../lib/jobs/job-record-rules';
import { isTotalledJob, type JobTotals, totalsOf, totalsShardOf } from '../../lib/jobs/job-totals-rules';
import { shardChange } from '../../lib/jobs/job-totals-store';

/**
 * Puts the jobs' rows (with or without the watchdog's index of running jobs:
 * without it, no schedule moves a running job during a test) and adds them
 * to the totals.
 */
export async function putCountedJobRows(jobs: readonly Job[], options: { watchdogIndex?: boolean } = {}) {
  const byShard = new Map<number, Partial<JobTotals>>();
  const rows = jobs.map((job) => {
    const { activepk, activesk, ...row } = jobRowOf(job) as Record<string, unknown>;
    const flags = isTotalledJob(job)
      ? { in_job_totals: true, ...(job.ai_api_calls > 0 ? { with_ai_calls_counted: true } : {}) }
      : {};
    const shard = byShard.get(totalsShardOf(job.id)) ?? {};
    for (const [name, value] of Object.entries(totalsOf({ ...job, ...flags })))
      shard[name as keyof JobTotals] = (shard[name as keyof JobTotals] ?? 0) + value;
    byShard.set(totalsShardOf(job.id), shard);
    return { ...row, ...(options.watchdogIndex && activepk ? { activepk, activesk } : {}), ...flags };
  });
  await putRows(rows);
  for (const [shard, change] of byShard) {
    const { Update } = shardChange(shard, change);
    if (Update) await db().send(new UpdateCommand(Update));
  }
}
