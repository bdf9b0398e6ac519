/**
 * The rows the claims platform send migration reads and writes
 * (claims-platform-migration-service.ts): Submissions written before sends
 * were leased state machines (no `stage`; their items in `item_ids`, the
 * counted ones in the sets `counted_item_ids` and `failed_item_ids`), those
 * written before sends ran on the engine (a `stage` and `lease_until`, no
 * `run_id`), and the claim's open-send row the first never had.
 */
import { PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { sendIndexes, sendKeys } from './keys';
import { setClauses } from '../db/update';

/** What the migration reads of a Submission, in either shape. */
export interface StoredSubmission {
  id: string;
  claim_id: string;
  status: string;
  /** Absent on a Submission written before sends were leased (then: charging, syncing, fanning_out, sending). */
  stage?: string | null;
  /** Absent on a Submission written before sends ran on the engine. */
  run_id?: string | null;
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
  const key = sendKeys.claimSend(claimId);
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
        Item: { ...sendKeys.submissionItem(submissionId, itemId), entity: 'SubmissionItem', item_id: itemId, state },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}

/**
 * Opens the engine run of a processing Submission written before sends ran
 * on the engine (`run`: the run's fields, at the stage it is resumed in) and
 * puts it on the open-runs index the watchdog walks; its item lists and its
 * earlier lease go (the item rows hold the items now). The send after it, or
 * null when it is not such a Submission any more (a second run).
 */
export async function openMigratedRun(
  id: string,
  run: Record<string, unknown> & { heartbeat_at: string },
): Promise<Record<string, unknown> | null> {
  const set = setClauses({ ...run, activepk: sendIndexes.openSubmissions().pk, activesk: `${run.heartbeat_at}#${id}` });
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: sendKeys.submission(id),
        UpdateExpression: `SET ${set.expression} REMOVE item_ids, counted_item_ids, failed_item_ids, stage, lease_until, resumes`,
        ConditionExpression: '#status_ = :processing AND attribute_not_exists(run_id)',
        ExpressionAttributeNames: { ...set.names, '#status_': 'status' },
        ExpressionAttributeValues: { ...set.values, ':processing': 'processing' },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return withoutKeys(Attributes ?? {});
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}
