/**
 * StagedPhoto records (spec: Resources > StagedPhoto; Photo pipeline (live
 * path) 1). A staged photo lives in its job's partition (pk JOB#<job>, sk
 * PHOTO#<index:06>), so one Query lists a job's photos in index order and
 * one conditional put makes the write idempotent per index.
 */
import { setClauses } from '../db/update';
import { randomUUID } from 'node:crypto';
import { BatchGetCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, isTransactionCanceled, tableName } from '../db/client';
import { keys, withoutKeys } from '../db/keys';

export interface StagedPhoto {
  id: string;
  job_id: string;
  /** The orig number: orig_{index}.jpg. */
  index: number;
  /** Synthetic stored name, e.g. orig_0001.jpg. */
  filename: string;
  /** Object key of the upright JPEG. */
  key: string;
  /** Object key the browser uploaded the original to (deleted once re-encoded). */
  incoming_key: string;
  /** The real name behind the synthetic one. */
  original_filename: string;
  /** 'YYYY-MM-DDTHH:MM:SS': EXIF date once re-encoded, the browser's date until then (or when EXIF has none). */
  captured_at: string | null;
  group_index: number;
  is_segment: boolean;
  manual_name: string | null;
  quantity: number | null;
  /** Soft delete. */
  deleted: boolean;
  /** Set when the bytes could not be decoded; such a photo is deleted and has no JPEG, so it must never be restored. */
  unreadable_reason: string | null;
  /** True once the upright JPEG is at `key`. */
  normalized: boolean;
  width: number | null;
  height: number | null;
  /** Bytes of the upload until re-encoded, then of the stored JPEG. */
  size_bytes: number;
  source_description: string | null;
  source_item_key: string | null;
  source_room: string | null;
  created_at: string;
  updated_at: string;
}

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
    source_room: null,
    created_at: at,
    updated_at: at,
  };
}

const item = (photo: StagedPhoto) => ({ ...keys.stagedPhoto(photo.job_id, photo.index), entity: 'StagedPhoto', ...photo });
const fromItem = (row: Record<string, unknown>) => withoutKeys(row) as unknown as StagedPhoto;

/** Puts a photo unless its index is taken; returns false when it already existed. */
export async function putStagedPhoto(photo: StagedPhoto): Promise<boolean> {
  try {
    await db().send(new PutCommand({ TableName: tableName(), Item: item(photo), ConditionExpression: 'attribute_not_exists(pk)' }));
    return true;
  } catch (err) {
    if (isConditionalCheckFailed(err)) return false;
    throw err;
  }
}

export type InsertOutcome = 'inserted' | 'photo-exists' | 'job-state' | 'conflict';

/**
 * Inserts up to 99 new photos and adds their bytes to the job's
 * file_size_bytes in one transaction, only while the job is in one of
 * `jobStatuses`: a repeated call can neither duplicate a row nor count its
 * bytes twice. 'photo-exists' means some index was taken meanwhile (re-read
 * and retry with the rest); 'conflict' a concurrent transaction on the job.
 */
export async function insertStagedPhotos(jobId: string, photos: StagedPhoto[], jobStatuses: readonly string[], now = new Date()): Promise<InsertOutcome> {
  if (photos.length === 0) return 'inserted';
  if (photos.length > 99) throw new RangeError('at most 99 photos per transaction');
  const bytes = photos.reduce((sum, p) => sum + p.size_bytes, 0);
  const statusValues = Object.fromEntries(jobStatuses.map((s, i) => [`:s${i}`, s]));
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          ...photos.map((p) => ({ Put: { TableName: tableName(), Item: item(p), ConditionExpression: 'attribute_not_exists(pk)' } })),
          {
            Update: {
              TableName: tableName(),
              Key: keys.job(jobId),
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

export async function getStagedPhoto(jobId: string, index: number): Promise<StagedPhoto | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.stagedPhoto(jobId, index), ConsistentRead: true }));
  return Item ? fromItem(Item) : null;
}

/** The photos at these indices that exist (consistent reads, 100 keys per call). */
export async function getStagedPhotos(jobId: string, indices: number[]): Promise<Map<number, StagedPhoto>> {
  const found = new Map<number, StagedPhoto>();
  const unique = [...new Set(indices)];
  for (let i = 0; i < unique.length; i += 100) {
    let requestKeys: Record<string, unknown>[] = unique.slice(i, i + 100).map((index) => keys.stagedPhoto(jobId, index));
    for (let attempt = 0; requestKeys.length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 50 * 2 ** attempt)));
      const { Responses, UnprocessedKeys } = await db().send(
        new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: requestKeys, ConsistentRead: true } } }),
      );
      for (const row of Responses?.[tableName()] ?? []) {
        const photo = fromItem(row);
        found.set(photo.index, photo);
      }
      requestKeys = (UnprocessedKeys?.[tableName()]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      if (attempt > 8 && requestKeys.length > 0) throw new Error('BatchGet kept returning unprocessed keys');
    }
  }
  return found;
}

/** Every staged photo of a job, in index order. */
export async function listStagedPhotos(jobId: string): Promise<StagedPhoto[]> {
  const out: StagedPhoto[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :photo)',
        ExpressionAttributeValues: { ':pk': keys.job(jobId).pk, ':photo': 'PHOTO#' },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const row of page.Items ?? []) out.push(fromItem(row));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

/** Sets fields of an existing photo; returns it after, or null when it does not exist. */
export async function updateStagedPhoto(jobId: string, index: number, set: Partial<Omit<StagedPhoto, 'id' | 'job_id' | 'index'>>, now = new Date()): Promise<StagedPhoto | null> {
  const clauses = setClauses({ ...set, updated_at: now.toISOString() });
  try {
    const { Attributes } = await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.stagedPhoto(jobId, index),
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
