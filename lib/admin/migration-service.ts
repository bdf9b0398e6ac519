/**
 * The one-time move of job rows written before the admin lists' day buckets
 * (lib/admin/job-page-rules.ts): such a row carries jobspk=JOBS, the single
 * all-jobs partition, and is listed by no day until moved. `npm run
 * migrate:job-days` moves every such row to the partition of its created_at
 * day (the sort key, <created_at>#<id>, is kept), reading only that old
 * partition, a page at a time, and counts it in the job totals the lists'
 * `total` reads (lib/jobs/job-totals-rules.ts): rows of that time were
 * written before the totals were kept. Safe to run again and alongside the service:
 * new rows are written to their day already, and a row is moved only while it
 * is still in the old partition. Once it reports 0 moved, the old partition
 * is empty and no write touches it again.
 */
import { moveLegacyJobIndexRows } from './store';

const ROWS_PER_ROUND = 500;

export async function migrateJobIndexToDays(): Promise<{ moved: number }> {
  let moved = 0;
  for (;;) {
    const round = await moveLegacyJobIndexRows(ROWS_PER_ROUND);
    moved += round;
    if (round === 0) return { moved };
  }
}
