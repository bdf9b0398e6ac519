/**
 * What a capture import keeps beyond its ImportBatch (spec: Other records >
 * Upload record; Events > Inbound webhook from the capture source, rules 5
 * and 6):
 *   - Upload records: provenance per imported media item, unique on
 *     (connection, media id), with sha256, size and a snapshot of where it
 *     was captured; registered, then importing, then ready (or failed). A
 *     media item whose record is ready is skipped by later imports.
 *   - The claim an assignment's media lands in on a connection: set by its
 *     first import, so later submissions append to it.
 *   - A webhook event and a submission, each bound to the batch the first
 *     delivery made, in one transaction with that batch.
 */
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { getRows, putRows } from '../../db/batch';
import { db, isConditionalCheckFailed, isConditionRace, tableName } from '../../db/client';
import { withoutKeys } from '../../db/keys';
import { captureKeys } from './keys';

type UploadRecordStatus = 'registered' | 'importing' | 'ready' | 'failed';

export interface UploadRecord {
  connection_id: string;
  external_media_id: string;
  batch_id: string;
  job_id: string;
  status: UploadRecordStatus;
  sha256: string | null;
  size_bytes: number | null;
  /** Where it was captured: assignment, location and group names, capture time, file name. */
  meta: Record<string, string | null>;
  updated_at: string;
}

const recordRow = (r: UploadRecord) => ({
  ...captureKeys.uploadRecord(r.connection_id, r.external_media_id),
  entity: 'UploadRecord',
  ...r,
});

/** The media of `mediaIds` already imported (ready) on the connection. */
export async function importedMediaIds(connectionId: string, mediaIds: string[]): Promise<Set<string>> {
  const rows = await getRows(
    mediaIds.map((id) => captureKeys.uploadRecord(connectionId, id)),
    { consistentRead: true },
  );
  return new Set(rows.filter((r) => r.status === 'ready').map((r) => String(r.external_media_id)));
}

/** Writes records as they are (registration, and each state after it). */
export async function putUploadRecords(records: UploadRecord[]): Promise<void> {
  await putRows(records.map(recordRow));
}

export async function getUploadRecord(connectionId: string, mediaId: string): Promise<UploadRecord | null> {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: captureKeys.uploadRecord(connectionId, mediaId),
      ConsistentRead: true,
    }),
  );
  return Item ? (withoutKeys(Item) as unknown as UploadRecord) : null;
}

/** The claim an assignment's imports land in on the connection, if one landed before. */
export async function assignmentClaimId(connectionId: string, assignmentId: string): Promise<string | null> {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: captureKeys.captureAssignment(connectionId, assignmentId),
      ConsistentRead: true,
    }),
  );
  return Item?.claim_id ? String(Item.claim_id) : null;
}

/** Records the assignment's claim unless one was recorded first; answers the one that stands. */
export async function recordAssignmentClaim(connectionId: string, assignmentId: string, claimId: string) {
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...captureKeys.captureAssignment(connectionId, assignmentId), entity: 'Unique', claim_id: claimId },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return claimId;
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
    return (await assignmentClaimId(connectionId, assignmentId)) ?? claimId;
  }
}

/**
 * Puts a webhook's batch row together with the rows binding its event and
 * submission to it; false when either was bound before (a redelivery, or
 * the same submission under a new event id).
 */
export async function putWebhookBatch(
  connectionId: string,
  ids: { event_id: string; submission_id: string },
  batchRow: Record<string, unknown>,
): Promise<boolean> {
  const bind = (key: { pk: string; sk: string }) => ({
    Put: {
      TableName: tableName(),
      Item: { ...key, entity: 'Unique', target_id: batchRow.id },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          bind(captureKeys.captureEvent(connectionId, ids.event_id)),
          bind(captureKeys.captureSubmission(connectionId, ids.submission_id)),
          { Put: { TableName: tableName(), Item: batchRow, ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      }),
    );
    return true;
  } catch (err) {
    if (isConditionRace(err)) return false;
    throw err;
  }
}

/** The batch a redelivered event, or an earlier event of the same submission, made. */
export async function webhookBatchId(
  connectionId: string,
  ids: { event_id: string; submission_id: string },
): Promise<string | null> {
  for (const key of [
    captureKeys.captureEvent(connectionId, ids.event_id),
    captureKeys.captureSubmission(connectionId, ids.submission_id),
  ]) {
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    if (Item?.target_id) return String(Item.target_id);
  }
  return null;
}
