/**
 * The items a claims platform send carries: one small row per item in the
 * Submission's partition (SUBMISSION#<id>, ITEM#<item_id>), pending until the
 * worker counts its outcome. Counting moves the row out of pending and adds
 * to the Submission's counters in one transaction, so a redelivered message
 * counts once, a process that dies between the two writes leaves neither, and
 * no row grows with the size of the send.
 *
 * A worker sends an item only under a lease on its row (claimSubmissionItem),
 * and its count of a sent item is the same transaction as the item's
 * submitted stamp, on condition that it still holds the row: the send sweep
 * counts a pending item failed only while no live worker holds it, so an item
 * is never both refunded and marked submitted.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type OwedSendRefund, owedSendRefundPut } from '../billing/send-refund-store';
import { putRows } from '../db/batch';
import { db, isConditionalCheckFailed, isConditionCancellation, tableName } from '../db/client';
import { keys } from '../db/keys';
import { partitionRows } from '../db/query';
import { itemRevisionUpdate } from '../inventory/item-store';

export type SubmissionItemState = 'pending' | 'done' | 'failed';

/** Writes the batch's item rows, all pending. */
export async function recordSubmissionItems(submissionId: string, itemIds: string[]): Promise<void> {
  await putRows(
    itemIds.map((itemId) => ({
      ...keys.submissionItem(submissionId, itemId),
      entity: 'SubmissionItem',
      item_id: itemId,
      state: 'pending',
    })),
  );
}

/** The send's item ids in `state` (every item when none is given). */
export async function submissionItemIds(submissionId: string, state?: SubmissionItemState): Promise<string[]> {
  const ids: string[] = [];
  for await (const row of partitionRows(keys.submission(submissionId).pk, {
    skPrefix: 'ITEM#',
    consistent: true,
    projection: 'item_id, #state',
    names: { '#state': 'state' },
  }))
    if (!state || row.state === state) ids.push(String(row.item_id));
  return ids;
}

/**
 * Takes the lease on a pending item for one worker (`runner`) until `until`:
 * 'claimed' (also when the runner held it already), 'busy' while another
 * worker's lease runs (with when it ends), 'counted' once its outcome is
 * counted (a redelivered message, or the sweep counted it).
 */
export async function claimSubmissionItem(
  submissionId: string,
  itemId: string,
  runner: string,
  now: number,
  until: number,
): Promise<{ state: 'claimed' } | { state: 'busy'; leaseUntil: number } | { state: 'counted' }> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.submissionItem(submissionId, itemId),
        UpdateExpression: 'SET lease_until = :until, runner = :runner',
        ConditionExpression:
          '#state = :pending AND (attribute_not_exists(lease_until) OR lease_until <= :now OR runner = :runner)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':until': until, ':runner': runner, ':pending': 'pending', ':now': now },
      }),
    );
    return { state: 'claimed' };
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.submissionItem(submissionId, itemId), ConsistentRead: true }),
  );
  if (Item?.state !== 'pending') return { state: 'counted' };
  return { state: 'busy', leaseUntil: Number(Item.lease_until ?? now) };
}

/** Gives up a worker's lease on a pending item (a failure to retry later), so the next delivery may take it at once. */
export async function releaseSubmissionItem(submissionId: string, itemId: string, runner: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.submissionItem(submissionId, itemId),
        UpdateExpression: 'REMOVE lease_until, runner',
        ConditionExpression: '#state = :pending AND runner = :runner',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':pending': 'pending', ':runner': runner },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

/** Who counts an item: the worker holding its lease (and, for an item sent, the time it is stamped submitted), or the sweep. */
export type ItemCounter = { runner: string; submittedAt?: Date } | { sweep: true; now: number };

/**
 * Counts one item's outcome once: done (with its photos) or failed, a failed
 * item's share of the charge recorded as owed back in the same write
 * (`refund`), and a sent item stamped submitted in it too. The worker counts
 * only while it holds the item's lease, the sweep only while nobody does.
 * 'refused' when that does not hold, it was counted before (a redelivered
 * message) or the send is no longer processing; 'item_gone' when only the
 * stamp was refused (the item was deleted while it was sent): nothing is
 * written. A transaction that collided with another write throws, so the
 * message is delivered again.
 */
export async function countSubmissionItem(
  submissionId: string,
  itemId: string,
  outcome: { ok: true; photos: number } | { ok: false },
  counter: ItemCounter,
  refund:
    | (Pick<OwedSendRefund, 'team_id' | 'reference' | 'spend'> & { part: NonNullable<OwedSendRefund['part']> })
    | null = null,
): Promise<'counted' | 'refused' | 'item_gone'> {
  const holder =
    'runner' in counter
      ? { condition: ' AND runner = :runner', values: { ':runner': counter.runner } }
      : {
          condition: ' AND (attribute_not_exists(lease_until) OR lease_until <= :now)',
          values: { ':now': counter.now },
        };
  const stamp =
    outcome.ok && 'runner' in counter && counter.submittedAt
      ? [itemRevisionUpdate(itemId, undefined, { claims_platform_submitted_at: counter.submittedAt.toISOString() })]
      : [];
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: keys.submissionItem(submissionId, itemId),
              UpdateExpression: 'SET #state = :outcome REMOVE lease_until, runner',
              ConditionExpression: `#state = :pending${holder.condition}`,
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: {
                ':outcome': outcome.ok ? 'done' : 'failed',
                ':pending': 'pending',
                ...holder.values,
              },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: keys.submission(submissionId),
              UpdateExpression: outcome.ok ? 'ADD done_count :one, photo_count :photos' : 'ADD failed_count :one',
              ConditionExpression: 'attribute_exists(pk) AND #status = :processing',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: {
                ':one': 1,
                ':processing': 'processing',
                ...(outcome.ok ? { ':photos': outcome.photos } : {}),
              },
            },
          },
          ...stamp,
          ...(refund
            ? [{ Put: owedSendRefundPut(refund.team_id, refund.reference, new Date(), refund.part, refund.spend) }]
            : []),
        ],
      }),
    );
    return 'counted';
  } catch (err) {
    if (!isConditionCancellation(err)) throw err;
    const refused = ((err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map(
      (r) => r.Code === 'ConditionalCheckFailed',
    );
    return stamp.length > 0 && refused[2] && !refused[0] && !refused[1] ? 'item_gone' : 'refused';
  }
}
