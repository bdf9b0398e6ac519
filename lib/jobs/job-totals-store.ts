/**
 * The media job totals' rows (./job-totals-rules.ts): the transaction item
 * that adds to a job's shard, the transactions that carry it, and the read
 * of every shard.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { getRows } from '../db/batch';
import { db, isThrottledTransaction, isTransactionCollision, tableName } from '../db/client';
import { jobKeys } from './keys';
import { withRetry } from '../retry';
import { JOB_TOTAL_SHARDS, type JobTotals, sumTotals, totalsShardOf } from './job-totals-rules';

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

/** The transaction item adding `change` (negative to take away) to the job's shard. */
export function totalsChange(jobId: string, change: Partial<JobTotals>, sign: 1 | -1 = 1): TransactItems[number] {
  return shardChange(totalsShardOf(jobId), change, sign);
}

/** The transaction item adding `change` (negative to take away) to one shard. */
export function shardChange(shard: number, change: Partial<JobTotals>, sign: 1 | -1 = 1): TransactItems[number] {
  const entries = Object.entries(change).filter(([, value]) => value);
  return {
    Update: {
      TableName: tableName(),
      Key: jobKeys.jobTotalsShard(shard),
      UpdateExpression: `ADD ${entries.map((_, n) => `#t${n} :t${n}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([name], n) => [`#t${n}`, name])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([, value], n) => [`:t${n}`, sign * Number(value)])),
    },
  };
}

/**
 * Writes a job row and its totals' change together. Two jobs of one shard
 * written at the same instant can collide; the loser is sent again (a
 * condition that did not hold is not retried: the caller reads it).
 */
export async function writeWithTotals(items: TransactItems): Promise<void> {
  await withRetry(() => db().send(new TransactWriteCommand({ TransactItems: items })), {
    attempts: 8,
    backoffMs: 20,
    maxBackoffMs: 500,
    jitter: true,
    retryable: (err) => isTransactionCollision(err) || isThrottledTransaction(err),
  });
}

/** The media job totals now: every shard read strongly, 16 keys in one batch. */
export async function readJobTotals(): Promise<JobTotals> {
  const shards = Array.from({ length: JOB_TOTAL_SHARDS }, (_, shard) => jobKeys.jobTotalsShard(shard));
  return sumTotals(await getRows(shards, { consistentRead: true }));
}
