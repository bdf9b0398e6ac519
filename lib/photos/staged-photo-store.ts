/**
 * StagedPhoto records (spec: Resources > StagedPhoto; Photo pipeline (live
 * path) 1). A staged photo lives in its job's partition (pk JOB#<job>, sk
 * PHOTO#<index:06>), so one Query lists a job's photos in index order and
 * one conditional put makes the write idempotent per index.
 */
import { setClauses } from '../db/update';
import { randomUUID } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, isTransactionCanceled, tableName } from '../db/client';
import { withoutKeys } from '../db/keys';
import { photoKeys } from './keys';
import { jobKeys } from '../jobs/keys';
import { deleteKeys, getRows, putRows } from '../db/batch';
import { partitionRows } from '../db/query';
import { segmentFilename } from './rules';
import type { SegmentBox, StagedPhoto } from './staged-photo-record-rules';

export interface NewStagedPhoto {
  jobId: string;
  index: number;
  filename: string;
  key: string;
  incomingKey: string;
  originalFilename: string;
  capturedAt: string | null;
  sizeBytes: number;
}

/** A photo as the upload creates it: its own group (group_index = index), not yet re-encoded. */
export function newStagedPhoto(input: NewStagedPhoto, now = new Date()): StagedPhoto {
  const at = now.toISOString();
  return {
    id: randomUUID(),
    job_id: input.jobId,
    index: input.index,
    filename: input.filename,
    key: input.key,
    incoming_key: input.incomingKey,
    original_filename: input.originalFilename,
    captured_at: input.capturedAt,
    group_index: input.index,
    is_segment: false,
    segment_of: null,
    crop: null,
    hidden_by_segments: false,
    manual_name: null,
    quantity: null,
    deleted: false,
    unreadable_reason: null,
    normalized: false,
    width: null,
    height: null,
    size_bytes: input.sizeBytes,
    source_description: null,
    source_item_key: null,
    source_label: null,
    source_room: null,
    created_at: at,
    updated_at: at,
  };
}

export interface NewSegment {
  index: number;
  group_index: number;
  box: SegmentBox;
  manual_name: string | null;
  quantity: number;
}

/**
 * A segment row cut from `original`: its own group of the item it belongs to,
 * the original's provenance, stored as seg_####.jpg next to the original. Not
 * normalized until the crop is made (lib/photos/segment-service.ts).
 */
export function newSegmentPhoto(original: StagedPhoto, segment: NewSegment, now = new Date()): StagedPhoto {
  const filename = segmentFilename(segment.index);
  const key = `${original.key.slice(0, original.key.lastIndexOf('/') + 1)}${filename}`;
  return {
    ...newStagedPhoto(
      {
        jobId: original.job_id,
        index: segment.index,
        filename,
        key,
        incomingKey: key,
        originalFilename: original.original_filename,
        capturedAt: original.captured_at,
        sizeBytes: 0,
      },
      now,
    ),
    group_index: segment.group_index,
    is_segment: true,
    segment_of: original.index,
    crop: { ...segment.box },
    manual_name: segment.manual_name,
    quantity: segment.quantity,
    source_description: original.source_description,
    source_item_key: original.source_item_key,
    source_label: original.source_label,
    source_room: original.source_room,
  };
}

/** The table row of a photo. */
export const stagedPhotoItem = (photo: StagedPhoto) => ({
  ...photoKeys.stagedPhoto(photo.job_id, photo.index),
  entity: 'StagedPhoto',
  ...photo,
});
/** Rows written before segments (or printed labels) existed lack their fields: they read as not segmented, unlabelled. */
const fromItem = (row: Record<string, unknown>) =>
  ({
    segment_of: null,
    crop: null,
    hidden_by_segments: false,
    source_label: null,
    ...withoutKeys(row),
  }) as unknown as StagedPhoto;

/**
 * Pauses between tries of a photo transaction that lost to a concurrent one
 * on the same rows (TransactionConflict, or an index taken meanwhile):
 * jittered so two racing confirms or edits do not collide again in step.
 */
export const PHOTO_TRANSACTION_RETRY = { backoffMs: 80, maxBackoffMs: 2000, jitter: true } as const;

export type InsertOutcome = 'inserted' | 'photo-exists' | 'job-state' | 'conflict';

/**
 * Inserts up to 99 new photos and adds their bytes to the job's
 * file_size_bytes in one transaction, only while the job is in one of
 * `jobStatuses`: a repeated call can neither duplicate a row nor count its
 * bytes twice. 'photo-exists' means some index was taken meanwhile (re-read
 * and retry with the rest); 'conflict' a concurrent transaction on the job.
 */
export async function insertStagedPhotos(
  jobId: string,
  photos: StagedPhoto[],
  jobStatuses: readonly string[],
  now = new Date(),
): Promise<InsertOutcome> {
  if (photos.length === 0) return 'inserted';
  if (photos.length > 99) throw new RangeError('at most 99 photos per transaction');
  const bytes = photos.reduce((sum, p) => sum + p.size_bytes, 0);
  const statusValues = Object.fromEntries(jobStatuses.map((s, i) => [`:s${i}`, s]));
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          ...photos.map((p) => ({
            Put: { TableName: tableName(), Item: stagedPhotoItem(p), ConditionExpression: 'attribute_not_exists(pk)' },
          })),
          {
            Update: {
              TableName: tableName(),
              Key: jobKeys.job(jobId),
              UpdateExpression: 'ADD file_size_bytes :bytes SET updated_at = :at',
              ConditionExpression: `attribute_exists(pk) AND #status IN (${Object.keys(statusValues).join(', ')})`,
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':bytes': bytes, ':at': now.toISOString(), ...statusValues },
            },
          },
        ],
      }),
    );
    return 'inserted';
  } catch (err) {
    if (!isTransactionCanceled(err)) throw err;
    const reasons = (err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    if (reasons[photos.length]?.Code === 'ConditionalCheckFailed') return 'job-state';
    if (reasons.some((r) => r.Code === 'ConditionalCheckFailed')) return 'photo-exists';
    if (reasons.some((r) => r.Code === 'TransactionConflict')) return 'conflict';
    throw err;
  }
}

/**
 * Writes whole photo rows of a job that is not visible yet (a contents-list
 * import fills a room's new job before the job row exists, as does a
 * homeowner's submit round): unconditional,
 * so a repeated write of the same rows is the same write.
 */
export async function putStagedPhotoRows(photos: StagedPhoto[]): Promise<void> {
  await putRows(photos.map(stagedPhotoItem));
}

export async function getStagedPhoto(jobId: string, index: number): Promise<StagedPhoto | null> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: photoKeys.stagedPhoto(jobId, index), ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : null;
}

/** The photos at these indices that exist (consistent reads; lib/db/batch retries unprocessed keys). */
export async function getStagedPhotos(jobId: string, indices: number[]): Promise<Map<number, StagedPhoto>> {
  const rows = await getRows(
    [...new Set(indices)].map((index) => photoKeys.stagedPhoto(jobId, index)),
    { consistentRead: true },
  );
  return new Map(rows.map((row) => fromItem(row)).map((photo) => [photo.index, photo]));
}

/** Every staged photo of a job, in index order. */
export async function listStagedPhotos(jobId: string): Promise<StagedPhoto[]> {
  const out: StagedPhoto[] = [];
  for await (const row of partitionRows(jobKeys.job(jobId).pk, { skPrefix: 'PHOTO#', consistent: true }))
    out.push(fromItem(row));
  return out;
}

/** Sets fields of an existing photo; returns it after, or null when it does not exist. */
export async function updateStagedPhoto(
  jobId: string,
  index: number,
  set: Partial<Omit<StagedPhoto, 'id' | 'job_id' | 'index'>>,
  now = new Date(),
): Promise<StagedPhoto | null> {
  const clauses = setClauses({ ...set, updated_at: now.toISOString() });
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: photoKeys.stagedPhoto(jobId, index),
        UpdateExpression: `SET ${clauses.expression}`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: clauses.names,
        ExpressionAttributeValues: clauses.values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? fromItem(Attributes) : null;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return null;
    throw err;
  }
}

/** Deletes staged photo rows by index (the pipeline removes soft-deleted photos before the AI runs). */
export async function deleteStagedPhotos(jobId: string, indices: number[]): Promise<void> {
  await deleteKeys(indices.map((index) => photoKeys.stagedPhoto(jobId, index)));
}

/** Rows per removal transaction (with the job's byte counter: DynamoDB takes 100 items). */
const ROWS_PER_REMOVAL = 99;

/**
 * Deletes photo rows whose bytes were counted into the job's file_size_bytes
 * and takes their bytes off it, in one transaction per 99 rows: a removal
 * repeated after its worker died takes off only the bytes of the rows still
 * there (each delete is conditional on its row, and a cancelled transaction
 * reads again which are left).
 */
export async function removeStagedPhotos(jobId: string, indices: number[]): Promise<void> {
  for (let start = 0; start < indices.length; start += ROWS_PER_REMOVAL) {
    const run = indices.slice(start, start + ROWS_PER_REMOVAL);
    for (let attempt = 1; ; attempt++) {
      const left = [...(await getStagedPhotos(jobId, run)).values()];
      if (left.length === 0) break;
      const bytes = left.reduce((sum, p) => sum + p.size_bytes, 0);
      try {
        await db().send(
          new TransactWriteCommand({
            TransactItems: [
              ...left.map((p) => ({
                Delete: {
                  TableName: tableName(),
                  Key: photoKeys.stagedPhoto(jobId, p.index),
                  ConditionExpression: 'attribute_exists(pk)',
                },
              })),
              {
                Update: {
                  TableName: tableName(),
                  Key: jobKeys.job(jobId),
                  UpdateExpression: 'ADD file_size_bytes :less',
                  ConditionExpression: 'attribute_exists(pk)',
                  ExpressionAttributeValues: { ':less': -bytes },
                },
              },
            ],
          }),
        );
        break;
      } catch (err) {
        // A row went (or the counter moved) under us: read again what is left.
        if (!isTransactionCanceled(err) || attempt >= 5) throw err;
      }
    }
  }
}
