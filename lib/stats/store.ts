/**
 * The rows the admin overview reads instead of the jobs (statsKeys.usage,
 * statsKeys.failure, statsKeys.presence): usage counters added to as things happen,
 * the failure feed and the minute-by-minute presence of users.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { putRows } from '../db/batch';
import { db, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { statsKeys } from './keys';
import { queryPartition } from '../db/query';
import { ACTIVE_USER_WINDOW_MS, bucketsAt, presenceMinutes, type Rollup, rollUp, type UsageRow } from './rules';

/** Adds `increments` to the team's rows of every bucket `at` falls in (atomic ADDs, one row each). */
export async function addUsageRows(teamId: string, at: Date, increments: Record<string, number>): Promise<void> {
  const entries = Object.entries(increments);
  if (entries.length === 0) return;
  const names = Object.fromEntries(entries.map(([name], i) => [`#c${i}`, name]));
  const values = Object.fromEntries(entries.map(([, value], i) => [`:c${i}`, value]));
  await Promise.all(
    bucketsAt(at).map((bucket) =>
      db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: statsKeys.usage(bucket, teamId),
          UpdateExpression: `SET team_id = :team, #bucket = :bucket ADD ${entries.map((_, i) => `#c${i} :c${i}`).join(', ')}`,
          ExpressionAttributeNames: { ...names, '#bucket': 'bucket' },
          ExpressionAttributeValues: { ...values, ':team': teamId, ':bucket': bucket },
        }),
      ),
    ),
  );
}

/** Every team's row of every bucket named, read side by side. */
export async function readUsageRows(buckets: readonly string[]): Promise<UsageRow[]> {
  const parts = await Promise.all(
    buckets.map((bucket) => queryPartition<UsageRow>(statsKeys.usage(bucket, '').pk, 'TEAM#')),
  );
  return parts.flat();
}

/** A rollup's rows outlive the month whose ranges read it. */
const ROLLUP_KEEP_SECONDS = 62 * 24 * 3600;

/**
 * Every team's row of a rollup (the sum of its rows of the rollup's months).
 * Made from the months the first time it is read, then read as it is: its
 * months are settled, so it never changes, and two first reads at once write
 * the same rows. Its completion row is written last, so a read that finds it
 * finds every team's row.
 */
export async function readRollupRows(rollup: Rollup, now = new Date()): Promise<UsageRow[]> {
  const [done, rows] = await Promise.all([
    db().send(new GetCommand({ TableName: tableName(), Key: statsKeys.usageRollupDone(rollup.bucket) })),
    readUsageRows([rollup.bucket]),
  ]);
  if (done.Item) return rows;
  const summed = rollUp(await readUsageRows(rollup.months));
  const expires_at = Math.floor(now.getTime() / 1000) + ROLLUP_KEEP_SECONDS;
  await putRows([
    ...summed.map((row) => ({
      ...row,
      ...statsKeys.usage(rollup.bucket, row.team_id),
      entity: 'Usage',
      bucket: rollup.bucket,
      expires_at,
    })),
    { ...statsKeys.usageRollupDone(rollup.bucket), entity: 'UsageRollup', months: rollup.months, expires_at },
  ]);
  return summed;
}

export interface FailureEntry {
  job_id: string;
  team_id: string;
  source_type: string;
  error_message: string;
  failed_at: string;
}

/** Failure feed rows are kept this long: the overview's widest range with a start is a year. */
const FAILURE_KEEP_SECONDS = 400 * 24 * 3600;

export async function putFailureEntry(entry: FailureEntry): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...statsKeys.failure(entry.failed_at, entry.job_id),
        entity: 'Failure',
        ...entry,
        expires_at: Math.floor(Date.parse(entry.failed_at) / 1000) + FAILURE_KEEP_SECONDS,
      },
    }),
  );
}

/** The newest failures since `start` (all when null), newest first. */
export async function listFailureEntries(start: string | null, limit: number): Promise<FailureEntry[]> {
  const { Items } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: start ? 'pk = :pk AND sk >= :start' : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': statsKeys.failure('', '').pk, ...(start ? { ':start': start } : {}) },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (Items ?? []).map((row) => {
    const { expires_at, ...rest } = withoutKeys(row);
    void expires_at;
    return rest as unknown as FailureEntry;
  });
}

/** How many distinct users were seen within the active window before `now`. */
export async function countActiveUsers(now = new Date()): Promise<number> {
  const since = new Date(now.getTime() - ACTIVE_USER_WINDOW_MS).toISOString();
  const minutes = await Promise.all(
    presenceMinutes(now).map((minute) =>
      queryPartition<{ user_id: string; seen_at: string }>(statsKeys.presence(minute, '').pk),
    ),
  );
  return new Set(
    minutes
      .flat()
      .filter((row) => row.seen_at >= since)
      .map((row) => row.user_id),
  ).size;
}
