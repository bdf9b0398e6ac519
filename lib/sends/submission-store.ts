/**
 * Submissions: one record per claims platform send (spec: Submission record),
 * listed per claim newest first (gsi1 CLAIM#<claim_id>#SUBMISSIONS). Its id
 * is derived from the send's charge key, so a repeated request finds the
 * submission it already made. Each item's outcome is counted once (the
 * item's id joins a set in the same conditional write), so a redelivered
 * queue message cannot count twice, and the submission completes exactly
 * once, when the last item is counted.
 */
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { indexes, keys, withoutKeys } from '../db/keys';
import { queryAll } from '../db/query';
import { setClauses } from '../db/update';

export type SubmissionStatus = 'processing' | 'complete' | 'failed';

export interface Submission {
  id: string;
  claim_id: string;
  team_id: string;
  status: SubmissionStatus;
  charge_key: string;
  credits: number;
  item_ids: string[];
  item_count: number;
  /** Photos the platform was given, counted as items finish. */
  photo_count: number;
  done_count: number;
  failed_count: number;
  failed_item_ids: string[];
  claim_key: string | null;
  remote_claim_id: string | null;
  dry_run: boolean;
  error: string | null;
  created_by_user_id: string;
  created_at: string;
  completed_at: string | null;
  /** End-to-end time, request to the last item, in seconds. */
  processing_seconds: number | null;
}

const asSubmission = (row: Record<string, unknown>) => {
  const { counted_item_ids, ...rest } = withoutKeys(row);
  void counted_item_ids;
  return rest as unknown as Submission;
};

/** Writes a new submission; false when one with this id exists (a repeated request). */
export async function putNewSubmission(submission: Submission): Promise<boolean> {
  const index = indexes.claimSubmissions(submission.claim_id);
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.submission(submission.id),
          entity: 'Submission',
          gsi1pk: index.pk,
          gsi1sk: `${submission.created_at}#${submission.id}`,
          ...submission,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

export async function getSubmission(id: string): Promise<Submission | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.submission(id), ConsistentRead: true }),
  );
  return Item ? asSubmission(Item) : null;
}

export async function listClaimSubmissions(claimId: string): Promise<Submission[]> {
  const rows = await queryAll<Record<string, unknown>>(indexes.claimSubmissions(claimId), { ScanIndexForward: false });
  return rows.map(asSubmission);
}

/** Writes fields while the submission is in `from`; null when it is not (or is gone). */
export async function updateSubmission(
  id: string,
  from: SubmissionStatus,
  fields: Partial<Omit<Submission, 'id' | 'claim_id' | 'team_id'>>,
): Promise<Submission | null> {
  const set = setClauses(fields);
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.submission(id),
        UpdateExpression: `SET ${set.expression}`,
        ConditionExpression: 'attribute_exists(pk) AND #status_ = :from_',
        ExpressionAttributeNames: { ...set.names, '#status_': 'status' },
        ExpressionAttributeValues: { ...set.values, ':from_': from },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return asSubmission(Attributes ?? {});
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/**
 * Counts one item's outcome once: done (with its photos) or failed. Null when
 * this item was counted before (a redelivered message) or the submission is gone.
 */
export async function countSubmissionItem(
  id: string,
  itemId: string,
  outcome: { ok: true; photos: number } | { ok: false },
): Promise<Submission | null> {
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.submission(id),
        UpdateExpression: outcome.ok
          ? 'ADD counted_item_ids :item, done_count :one, photo_count :photos'
          : 'ADD counted_item_ids :item, failed_count :one SET failed_item_ids = list_append(failed_item_ids, :items)',
        ConditionExpression: 'attribute_exists(pk) AND NOT contains(counted_item_ids, :id)',
        ExpressionAttributeValues: {
          ':item': new Set([itemId]),
          ':id': itemId,
          ':one': 1,
          ...(outcome.ok ? { ':photos': outcome.photos } : { ':items': [itemId] }),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return asSubmission(Attributes ?? {});
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** The purge's part: a claim's submissions go with it. */
export async function deleteClaimSubmissions(claimId: string): Promise<number> {
  const rows = await listClaimSubmissions(claimId);
  for (const row of rows) await db().send(new DeleteCommand({ TableName: tableName(), Key: keys.submission(row.id) }));
  return rows.length;
}
