/**
 * The rows the claims platform send migration reads and writes
 * (claims-platform-migration-service.ts): Submissions written before sends
 * were leased state machines (no `stage`; their items in `item_ids`, the
 * counted ones in the sets `counted_item_ids` and `failed_item_ids`), and the
 * claim's open-send row those sends never had.
 */
import { PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { indexes, keys, withoutKeys } from '../db/keys';

/** What the migration reads of a Submission, in either shape. */
export interface StoredSubmission {
  id: string;
  claim_id: string;
  status: string;
  /** Absent on a Submission of the earlier shape. */
  stage?: string | null;
  charge_key: string;
  created_at: string;
  item_ids?: string[];
  counted_item_ids?: Set<string> | string[];
  failed_item_ids?: string[];
}

/** Every Submission of the table, in either shape (a one-time scan). */
export async function* allSubmissions(): AsyncGenerator<StoredSubmission> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'entity = :entity',
        ExpressionAttributeValues: { ':entity': 'Submission' },
        ExclusiveStartKey: start,
        ConsistentRead: true,
      }),
    );
    for (const row of page.Items ?? []) yield withoutKeys(row) as unknown as StoredSubmission;
    start = page.LastEvaluatedKey;
  } while (start);
}

/**
 * Raises the claim's charge round of each batch size to at least the one its
 * earlier sends used (references are never reused), and points the claim's
 * open send at `openId` when it points at none.
 */
export async function raiseClaimSendRounds(
  claimId: string,
  rounds: Record<string, number>,
  openId: string | null,
): Promise<void> {
  const key = keys.claimSend(claimId);
  for (const [alreadySubmitted, round] of Object.entries(rounds)) {
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'SET #round = :round, claim_id = :claim, entity = :entity',
          ConditionExpression: 'attribute_not_exists(#round) OR #round < :round',
          ExpressionAttributeNames: { '#round': `round_${alreadySubmitted}` },
          ExpressionAttributeValues: { ':round': round, ':claim': claimId, ':entity': 'ClaimSend' },
        }),
      );
    } catch (err) {
      if (!isConditionalCheckFailed(err)) throw err;
    }
  }
  if (!openId) return;
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET submission_id = :id, claim_id = :claim, entity = :entity',
        ConditionExpression: 'attribute_not_exists(submission_id)',
        ExpressionAttributeValues: { ':id': openId, ':claim': claimId, ':entity': 'ClaimSend' },
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

/** Writes an item row of a send unless it exists (a second run never resets a row a worker has counted). */
export async function putSubmissionItemOnce(
  submissionId: string,
  itemId: string,
  state: 'pending' | 'done' | 'failed',
): Promise<void> {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.submissionItem(submissionId, itemId), entity: 'SubmissionItem', item_id: itemId, state },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

/**
 * Gives a processing Submission of the earlier shape the stage `sending`
 * under a lease that has already run out, on the open-submissions index, so
 * the send sweep hands it to the worker; its item lists go (the item rows
 * hold them now). False when it is not such a Submission any more.
 */
export async function leaseLegacySubmission(id: string, now: number): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.submission(id),
        UpdateExpression:
          'SET stage = :stage, lease_until = :now, resumes = :zero, activepk = :activepk, activesk = :activesk ' +
          'REMOVE item_ids, counted_item_ids, failed_item_ids',
        ConditionExpression: '#status = :processing AND attribute_not_exists(stage)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':stage': 'sending',
          ':now': now,
          ':zero': 0,
          ':activepk': indexes.openSubmissions().pk,
          ':activesk': `${new Date(now).toISOString()}#${id}`,
          ':processing': 'processing',
        },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}
