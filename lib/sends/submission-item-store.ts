/**
 * The items a claims platform send carries: one small row per item in the
 * Submission's partition (SUBMISSION#<id>, ITEM#<item_id>), pending until the
 * worker counts its outcome. Counting moves the row out of pending and adds
 * to the Submission's counters in one transaction, so a redelivered message
 * counts once, a process that dies between the two writes leaves neither, and
 * no row grows with the size of the send.
 *
 * The count of a sent item is the same transaction as the item's submitted
 * stamp, on condition that the row is still pending: an item counted failed
 * when its send ended is never also marked submitted, and an item stamped
 * submitted is never refunded. (One unit of the send's run sends an item at a
 * time: the engine's unit lease outlives any invocation.)
 */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { owedSendRefundPut } from '../billing/send-refund-store';
import type { OwedSendRefund } from '../billing/send-refund-record-rules';
import { putRows } from '../db/batch';
import { db, isConditionCancellation, tableName } from '../db/client';
import { sendKeys } from './keys';
import { partitionRows } from '../db/query';
import { itemRevisionUpdate } from '../inventory/item-store';

export type SubmissionItemState = 'pending' | 'done' | 'failed';

/** Writes the batch's item rows, all pending. */
export async function recordSubmissionItems(submissionId: string, itemIds: string[]): Promise<void> {
  await putRows(
    itemIds.map((itemId) => ({
      ...sendKeys.submissionItem(submissionId, itemId),
      entity: 'SubmissionItem',
      item_id: itemId,
      state: 'pending',
    })),
  );
}

/** The send's item ids in `state` (every item when none is given). */
export async function submissionItemIds(submissionId: string, state?: SubmissionItemState): Promise<string[]> {
  const ids: string[] = [];
  for await (const row of partitionRows(sendKeys.submission(submissionId).pk, {
    skPrefix: 'ITEM#',
    consistent: true,
    projection: 'item_id, #state',
    names: { '#state': 'state' },
  }))
    if (!state || row.state === state) ids.push(String(row.item_id));
  return ids;
}

/**
 * Numbers the send's items for the units of its run: row `index` names the
 * item unit `index` sends, so a unit reads one row instead of the whole list.
 * Written again by a restarted plan with the same numbers (the ids sorted).
 */
export async function recordUnitItems(submissionId: string, itemIds: string[]): Promise<void> {
  await putRows(
    itemIds.map((itemId, index) => ({
      ...sendKeys.submissionUnitItem(submissionId, index),
      entity: 'SubmissionUnitItem',
      item_id: itemId,
    })),
  );
}

/** The item unit `index` of the send's run sends (recordUnitItems). */
export async function unitItemId(submissionId: string, index: number): Promise<string | null> {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: sendKeys.submissionUnitItem(submissionId, index),
      ConsistentRead: true,
    }),
  );
  return (Item?.item_id as string | undefined) ?? null;
}

/** Where one item of the send is: pending until its outcome is counted. */
export async function submissionItemState(submissionId: string, itemId: string): Promise<SubmissionItemState | null> {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: sendKeys.submissionItem(submissionId, itemId),
      ConsistentRead: true,
    }),
  );
  return (Item?.state as SubmissionItemState | undefined) ?? null;
}

/**
 * Counts one item's outcome once: done (with its photos) or failed, a failed
 * item's share of the charge recorded as owed back in the same write
 * (`refund`), and a sent item stamped submitted in it too (`submittedAt`).
 * 'refused' when it was counted before (a unit run again) or the send is no
 * longer processing; 'item_gone' when only the stamp was refused (the item
 * was deleted while it was sent): nothing is written. A transaction that
 * collided with another write throws, so the unit is run again.
 */
export async function countSubmissionItem(
  submissionId: string,
  itemId: string,
  outcome: { ok: true; photos: number } | { ok: false },
  submittedAt: Date | undefined,
  refund:
    | (Pick<OwedSendRefund, 'team_id' | 'reference' | 'spend'> & { part: NonNullable<OwedSendRefund['part']> })
    | null = null,
): Promise<'counted' | 'refused' | 'item_gone'> {
  const stamp =
    outcome.ok && submittedAt
      ? [itemRevisionUpdate(itemId, undefined, { claims_platform_submitted_at: submittedAt.toISOString() })]
      : [];
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: sendKeys.submissionItem(submissionId, itemId),
              UpdateExpression: 'SET #state = :outcome',
              ConditionExpression: '#state = :pending',
              ExpressionAttributeNames: { '#state': 'state' },
              ExpressionAttributeValues: { ':outcome': outcome.ok ? 'done' : 'failed', ':pending': 'pending' },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: sendKeys.submission(submissionId),
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
