/**
 * Item numbers of a claim (spec: Processing rules 3): numbers continue from the
 * claim's current maximum. The claim row carries that maximum
 * (item_number_max); a batch of new items takes the next numbers in one
 * transaction that moves the maximum only if it is still what was read
 * (optimistic), so concurrent jobs of one claim never hand out a number twice.
 * The batch records the range it took in a marker row (with the claim's
 * renumber count then), so a stage that runs again after a crash gets the
 * same numbers, or fresh ones if the claim was renumbered in between.
 *
 * Everything that writes numbered items (a pipeline batch, a manual add, a
 * restore) does so under the claim's numbering lease (item-placement-store.ts):
 * a range handed out but not yet written can never meet a renumber.
 */
import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db, isTransactionCanceled, tableName } from '../../db/client';
import { roomIndexes } from '../../rooms/keys';
import { claimKeys } from '../../claims/keys';
import { queryAll } from '../../db/query';
import { withRetry, type RetryPolicy } from '../../retry';

// ---------------------------------------------------------------------------

/** The largest item number any item of the claim carries (used once, when the claim has no counter yet). */
export async function scanClaimMaximum(claimId: string): Promise<number> {
  const rooms = await queryAll<{ id: string }>(roomIndexes.claimRooms(claimId), { ProjectionExpression: 'id' });
  let max = 0;
  for (const room of rooms) {
    const { Items } = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: roomIndexes.roomItems(room.id).index,
        KeyConditionExpression: 'gsi2pk = :pk',
        ExpressionAttributeValues: { ':pk': roomIndexes.roomItems(room.id).pk },
        ScanIndexForward: false,
        Limit: 1,
        ProjectionExpression: 'item_number',
      }),
    );
    max = Math.max(max, Number(Items?.[0]?.item_number ?? 0));
  }
  return max;
}

interface NumberRange {
  first: number;
  count: number;
  /**
   * Set when the range was handed out before the claim was last renumbered
   * (the claim's renumber count now): items not yet written need fresh numbers.
   */
  staleSince?: number;
}

const rangeMarkerKey = (jobId: string, batchKey: string) => ({ pk: `JOB#${jobId}`, sk: `ITEMBATCH#${batchKey}` });

/** Another batch took numbers of the same claim between our read and our write. */
class NumberRace extends Error {
  constructor(claimId: string, cause: unknown) {
    super(`item numbers of claim ${claimId} kept moving`, { cause });
  }
}

/**
 * Every batch of a claim's numbers eventually wins: lost races are retried
 * after a short jittered pause (20-40 ms, not growing: contention lasts only
 * while the other batches of the same claim commit).
 */
const NUMBER_RACE_RETRY: RetryPolicy = {
  attempts: 200,
  backoffMs: 40,
  factor: 1,
  jitter: true,
  retryable: (err) => err instanceof NumberRace,
};

/**
 * Takes `count` consecutive item numbers after the claim's current maximum,
 * once per (job, batchKey): a repeated call for the same batch returns the
 * range the first call took. Optimistic: the claim's maximum moves only if it
 * is still the value read; on a race it reads again and retries.
 */
export async function allocateItemNumbers(
  claimId: string,
  jobId: string,
  batchKey: string,
  count: number,
): Promise<NumberRange> {
  const markerKey = rangeMarkerKey(jobId, batchKey);
  return withRetry(async () => {
    const [{ Item: marker }, { Item: claim }] = await Promise.all([
      db().send(new GetCommand({ TableName: tableName(), Key: markerKey, ConsistentRead: true })),
      db().send(
        new GetCommand({
          TableName: tableName(),
          Key: claimKeys.claim(claimId),
          ConsistentRead: true,
          ProjectionExpression: 'item_number_max, numbering_seq',
        }),
      ),
    ]);
    const seq = Number(claim?.numbering_seq ?? 0);
    if (marker) {
      const range = { first: Number(marker.first), count: Number(marker.count) };
      return Number(marker.seq ?? 0) === seq ? range : { ...range, staleSince: seq };
    }
    if (count === 0) return { first: 0, count: 0 };
    const known = claim?.item_number_max;
    const current = known === undefined ? await scanClaimMaximum(claimId) : Number(known);
    const first = current + 1;
    try {
      await db().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: tableName(),
                Key: claimKeys.claim(claimId),
                UpdateExpression: 'SET item_number_max = :next',
                // The renumber count too: a range recorded against an old count would be taken for stale.
                ConditionExpression:
                  (known === undefined
                    ? 'attribute_exists(pk) AND attribute_not_exists(item_number_max)'
                    : 'attribute_exists(pk) AND item_number_max = :current') +
                  ' AND (attribute_not_exists(numbering_seq) OR numbering_seq = :seq)',
                ExpressionAttributeValues: {
                  ':next': current + count,
                  ':seq': seq,
                  ...(known === undefined ? {} : { ':current': current }),
                },
              },
            },
            {
              Put: {
                TableName: tableName(),
                Item: { ...markerKey, entity: 'ItemNumberBatch', first, count, seq },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      return { first, count };
    } catch (err) {
      if (!isTransactionCanceled(err)) throw err;
      const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
      if (reasons[0]?.Code === 'ConditionalCheckFailed' && claim === undefined)
        throw new Error(`claim ${claimId} no longer exists`);
      // Another batch moved the maximum (or this batch's marker appeared): read again.
      throw new NumberRace(claimId, err);
    }
  }, NUMBER_RACE_RETRY);
}
