/**
 * Upload session records (keys.upload): one per chunked video/audio upload.
 * While open the row sits in the sparse 'UPLOADS#OPEN' partition of gsi2
 * (sorted by created_at) so the stale-upload sweep reads only open uploads.
 * Every status change is a conditional write on the expected status.
 *
 *   open ──complete──> completing ──> completed
 *     │ └──DELETE──> aborted
 *     └──sweep (or S3 forgot it)──> expired
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { uploadIndexes, uploadKeys } from './keys';
import type { UploadKind } from './rules';

const UPLOAD_STATUSES = ['open', 'completing', 'completed', 'aborted', 'expired'] as const;
export type UploadStatus = (typeof UPLOAD_STATUSES)[number];

export interface Upload {
  /** uuid; the upload_id clients use. */
  id: string;
  team_id: string;
  claim_id: string;
  room_id: string;
  user_id: string;
  kind: UploadKind;
  /** The name as the client gave it (base name). */
  filename: string;
  total_size: number;
  chunk_size: number;
  part_count: number;
  /** Object key the parts assemble into. */
  s3_key: string;
  /** S3's multipart UploadId. */
  s3_upload_id: string;
  /** The job complete creates, chosen at init (its id is in the object key). */
  job_id: string;
  status: UploadStatus;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

/** How long a finished upload row is kept (DynamoDB TTL on expires_at). */
const FINISHED_ROW_DAYS = 30;

const openIndex = (upload: Pick<Upload, 'created_at'>) => ({
  gsi2pk: uploadIndexes.openUploads().pk,
  gsi2sk: upload.created_at,
});

export async function putUpload(upload: Upload): Promise<Upload> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...uploadKeys.upload(upload.id), entity: 'Upload', ...openIndex(upload), ...upload },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return upload;
}

export async function getUpload(id: string): Promise<Upload | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: uploadKeys.upload(id), ConsistentRead: true }),
  );
  return Item ? (withoutKeys(Item) as unknown as Upload) : null;
}

/**
 * Moves an upload from one of `from` to `to`; returns the row after it, or
 * null when it was not in one of those statuses. Leaving 'open' drops it from
 * the open index; a finished row expires after FINISHED_ROW_DAYS.
 */
export async function transitionUpload(
  id: string,
  from: readonly UploadStatus[],
  to: UploadStatus,
  now = new Date(),
): Promise<Upload | null> {
  const at = now.toISOString();
  const values: Record<string, unknown> = { ':to': to, ':at': at };
  const froms = from.map((s, i) => {
    values[`:from${i}`] = s;
    return `:from${i}`;
  });
  const sets = ['#status = :to', 'updated_at = :at'];
  if (to === 'completed') sets.push('completed_at = :at');
  if (to !== 'open' && to !== 'completing') {
    sets.push('expires_at = :exp');
    values[':exp'] = Math.floor(now.getTime() / 1000) + FINISHED_ROW_DAYS * 86400;
  }
  const removes = to === 'open' ? '' : ' REMOVE gsi2pk, gsi2sk';
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: uploadKeys.upload(id),
        UpdateExpression: `SET ${sets.join(', ')}${removes}`,
        ConditionExpression: `attribute_exists(pk) AND #status IN (${froms.join(', ')})`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return withoutKeys(Attributes ?? {}) as unknown as Upload;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** Open uploads created before `cutoff`, oldest first, a page at a time. */
export async function* openUploadsCreatedBefore(cutoff: Date): AsyncGenerator<Upload> {
  const index = uploadIndexes.openUploads();
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: index.index,
        KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :cutoff',
        ExpressionAttributeValues: { ':pk': index.pk, ':cutoff': cutoff.toISOString() },
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) yield withoutKeys(item) as unknown as Upload;
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
}
