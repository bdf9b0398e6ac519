/**
 * Grouping edits of a job's staged photos, all or nothing (spec: Jobs,
 * staged-photos regroup, delete, restore, segment, clear-segments, details).
 *
 * One DynamoDB transaction holds at most 100 items, and an edit may touch
 * more rows than that (a regroup of 150 photos). An edit that fits is one
 * transaction. A larger one:
 *
 *   1. reads the rows it changes (their before-images);
 *   2. takes the job's photo-write lock (a lease on the job row, only while
 *      the job is groupable), so no other grouping edit interleaves;
 *   3. commits transactions of up to 98 row writes, each also checking the
 *      job is still groupable and the lock still ours;
 *   4. when one fails, undoes the transactions already committed from the
 *      before-images, then releases the lock.
 *
 * Each undo write is conditional on the row still holding what this edit
 * wrote, so a later write by someone else (the photos worker marking a photo
 * unreadable) is never overwritten. A process that dies between two chunks
 * leaves its chunks applied until the lock expires; the API answers the
 * client with an error in every other case, and nothing stays half-applied.
 */
import { randomUUID } from 'node:crypto';
import { DeleteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import pLimit from 'p-limit';
import { db, isConditionalCheckFailed, isTransactionCanceled, tableName } from '../db/client';
import { jobKeys } from '../jobs/keys';
import { photoKeys } from './keys';
import { leaseFree, leaseHeldBy, releaseLease, takeLease } from '../db/lease';
import { leaseHeld } from '../db/lease-rules';
import { setClauses } from '../db/update';
import { logger } from '../observability/logger';
import { withRetry } from '../retry';
import { getStagedPhotos, PHOTO_TRANSACTION_RETRY, stagedPhotoItem } from './staged-photo-store';
import type { StagedPhoto } from './staged-photo-record-rules';

type PhotoFields = Partial<Omit<StagedPhoto, 'id' | 'job_id' | 'index'>>;

export type StagedPhotoWrite =
  | { put: StagedPhoto }
  | { update: { index: number; set: PhotoFields } }
  | { delete: { index: number } };

/** 'job-state': the job is gone, not groupable, or another edit holds its photos; 'row-changed': a row appeared or vanished meanwhile. */
export type WriteOutcome = 'written' | 'job-state' | 'row-changed';

/** Photo writes per transaction: DynamoDB takes 100 items, one is the job check (and the spec's cap is 99). */
const WRITES_PER_TRANSACTION = 98;

/** How long a multi-transaction edit may hold the job's photos; past it another edit may take over. */
export const PHOTO_WRITE_LOCK_MS = 120_000;

/** The job row's attributes that hold the lock: its token and the epoch ms it runs until. */
const PHOTO_WRITE_LEASE = { holder: 'photo_write_lock', until: 'photo_write_lock_until' };

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Whether a job row shows a multi-transaction photo edit under way. */
export function photoWriteLocked(job: object, now = Date.now()): boolean {
  const row = job as { photo_write_lock?: string | null; photo_write_lock_until?: number | null };
  return leaseHeld(row.photo_write_lock, row.photo_write_lock_until, now);
}

/** The condition, for a job write, that no multi-transaction photo edit holds the job (none, or expired). */
export function photoWriteLockFree(now = Date.now()): { condition: string; values: Record<string, unknown> } {
  const free = leaseFree(PHOTO_WRITE_LEASE, now, ':photoLockNow');
  return { condition: free.expression, values: free.values };
}

function statusCondition(jobStatuses: readonly string[]) {
  const values = Object.fromEntries(jobStatuses.map((s, i) => [`:s${i}`, s]));
  return { expression: `attribute_exists(pk) AND #status IN (${Object.keys(values).join(', ')})`, values };
}

/** The job check that rides in every transaction: groupable, and the lock free (token null) or ours. */
function jobCheck(jobId: string, jobStatuses: readonly string[], token: string | null, now: number): TransactItem {
  const status = statusCondition(jobStatuses);
  const lock = token ? leaseHeldBy(PHOTO_WRITE_LEASE, token, ':token') : leaseFree(PHOTO_WRITE_LEASE, now, ':now');
  return {
    ConditionCheck: {
      TableName: tableName(),
      Key: jobKeys.job(jobId),
      ConditionExpression: `${status.expression} AND (${lock.expression})`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ...status.values, ...lock.values },
    },
  };
}

function transactItem(jobId: string, write: StagedPhotoWrite, at: string): TransactItem {
  if ('put' in write)
    return {
      Put: {
        TableName: tableName(),
        Item: stagedPhotoItem(write.put),
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  if ('delete' in write)
    return { Delete: { TableName: tableName(), Key: photoKeys.stagedPhoto(jobId, write.delete.index) } };
  const clauses = setClauses({ ...write.update.set, updated_at: at });
  return {
    Update: {
      TableName: tableName(),
      Key: photoKeys.stagedPhoto(jobId, write.update.index),
      UpdateExpression: `SET ${clauses.expression}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: clauses.names,
      ExpressionAttributeValues: clauses.values,
    },
  };
}

const cancellationCodes = (err: unknown) =>
  ((err as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code);

/** A transaction that lost to a concurrent one on one of its rows: nothing of it was written, so it can run again. */
const lostTransactionRace = (err: unknown) =>
  isTransactionCanceled(err) && cancellationCodes(err).includes('TransactionConflict');

/** Tries of one chunk that keeps losing to concurrent transactions. */
const CHUNK_ATTEMPTS = 7;

/** One transaction of row writes plus the job check; a lost race with another transaction is retried. */
function writeChunk(jobId: string, chunk: StagedPhotoWrite[], check: TransactItem, at: string): Promise<WriteOutcome> {
  return withRetry(
    async (): Promise<WriteOutcome> => {
      try {
        await db().send(
          new TransactWriteCommand({ TransactItems: [...chunk.map((w) => transactItem(jobId, w, at)), check] }),
        );
        return 'written';
      } catch (err) {
        if (!isTransactionCanceled(err)) throw err;
        const codes = cancellationCodes(err);
        if (codes[chunk.length] === 'ConditionalCheckFailed') return 'job-state';
        if (codes.includes('ConditionalCheckFailed')) return 'row-changed';
        throw err;
      }
    },
    { ...PHOTO_TRANSACTION_RETRY, attempts: CHUNK_ATTEMPTS, retryable: lostTransactionRace },
  );
}

/**
 * Writes many photo rows, all or nothing, only while the job exists and is in
 * one of `jobStatuses`. Puts need a free index, updates and deletes an
 * existing row.
 */
export async function writeStagedPhotos(
  jobId: string,
  writes: StagedPhotoWrite[],
  jobStatuses: readonly string[],
  now = new Date(),
): Promise<WriteOutcome> {
  if (writes.length === 0) return 'written';
  const at = now.toISOString();
  if (writes.length <= WRITES_PER_TRANSACTION)
    return writeChunk(jobId, writes, jobCheck(jobId, jobStatuses, null, Date.now()), at);

  const before = await getStagedPhotos(
    jobId,
    writes.flatMap((w) => ('put' in w ? [w.put.index] : 'update' in w ? [w.update.index] : [w.delete.index])),
  );
  const fits = writes.every((w) =>
    'put' in w ? !before.has(w.put.index) : 'update' in w ? before.has(w.update.index) : true,
  );
  if (!fits) return 'row-changed';

  const token = randomUUID();
  if (!(await takePhotoWriteLock(jobId, jobStatuses, token))) return 'job-state';
  const check = jobCheck(jobId, jobStatuses, token, Date.now());
  let attempted = 0;
  try {
    for (let i = 0; i < writes.length; i += WRITES_PER_TRANSACTION) {
      const chunk = writes.slice(i, i + WRITES_PER_TRANSACTION);
      attempted = i + chunk.length;
      const outcome = await writeChunk(jobId, chunk, check, at);
      if (outcome !== 'written') {
        await undo(jobId, writes.slice(0, i), before);
        return outcome;
      }
    }
    return 'written';
  } catch (err) {
    // The failed chunk's fate may be unknown (a timeout): undo it too; its undo writes find nothing to do if it did not land.
    await undo(jobId, writes.slice(0, attempted), before);
    throw err;
  } finally {
    await releasePhotoWriteLock(jobId, token);
  }
}

/**
 * Takes the job's photo-write lock for PHOTO_WRITE_LOCK_MS, only while the job
 * is in one of `jobStatuses` and no unexpired lock is held; false otherwise.
 * Processing refuses a job while it is held (lib/job-actions/service.ts).
 */
export async function takePhotoWriteLock(
  jobId: string,
  jobStatuses: readonly string[],
  token: string,
): Promise<boolean> {
  const status = statusCondition(jobStatuses);
  const now = Date.now();
  return takeLease({
    key: jobKeys.job(jobId),
    lease: PHOTO_WRITE_LEASE,
    holder: token,
    untilMs: now + PHOTO_WRITE_LOCK_MS,
    nowMs: now,
    also: { ...status, names: { '#status': 'status' } },
  });
}

/** Releases the lock if `token` still holds it; never raises (an unreleased lock expires by itself). */
export async function releasePhotoWriteLock(jobId: string, token: string): Promise<void> {
  await releaseLease(jobKeys.job(jobId), PHOTO_WRITE_LEASE, token).catch((err) =>
    logger.error('staged photos: could not release the photo write lock (it expires by itself)', {
      job_id: jobId,
      err,
    }),
  );
}

/** The write that takes a row back to its before-image, only while the row still holds what `write` put there. */
function undoCommand(jobId: string, write: StagedPhotoWrite, before: Map<number, StagedPhoto>) {
  if ('put' in write) {
    return new DeleteCommand({
      TableName: tableName(),
      Key: photoKeys.stagedPhoto(jobId, write.put.index),
      ConditionExpression: 'id = :id',
      ExpressionAttributeValues: { ':id': write.put.id },
    });
  }
  const previous = before.get('delete' in write ? write.delete.index : write.update.index);
  if ('delete' in write) {
    return previous
      ? new PutCommand({
          TableName: tableName(),
          Item: stagedPhotoItem(previous),
          ConditionExpression: 'attribute_not_exists(pk)',
        })
      : null;
  }
  if (!previous) return null;
  const fields = Object.keys(write.update.set) as (keyof PhotoFields)[];
  const restore = setClauses({
    ...Object.fromEntries(fields.map((f) => [f, previous[f]])),
    updated_at: previous.updated_at,
  });
  const ours = Object.fromEntries(fields.map((f, i) => [`:was${i}`, write.update.set[f]]));
  return new UpdateCommand({
    TableName: tableName(),
    Key: photoKeys.stagedPhoto(jobId, write.update.index),
    UpdateExpression: `SET ${restore.expression}`,
    // Only the fields this edit wrote are compared: the photos worker's later writes (normalized, size) are other fields.
    ConditionExpression: fields.map((f, i) => `#${f} = :was${i}`).join(' AND '),
    ExpressionAttributeNames: restore.names,
    ExpressionAttributeValues: { ...restore.values, ...ours },
  });
}

/** Tries of one undo write: 50 ms doubling. */
const UNDO_RETRY = { attempts: 4, backoffMs: 50 } as const;

/** Takes the committed chunks back. A row someone changed since is left as they made it. */
async function undo(jobId: string, applied: StagedPhotoWrite[], before: Map<number, StagedPhoto>): Promise<void> {
  if (applied.length === 0) return;
  const limit = pLimit(8);
  await Promise.all(
    applied.map((write) =>
      limit(async () => {
        const command = undoCommand(jobId, write, before);
        if (!command) return;
        try {
          await withRetry(async () => {
            try {
              await db().send(command as UpdateCommand);
            } catch (err) {
              // The row no longer holds what this edit wrote: someone changed it since, and it stays as they made it.
              if (!isConditionalCheckFailed(err)) throw err;
            }
          }, UNDO_RETRY);
        } catch (err) {
          logger.error('staged photos: could not undo a photo write', { job_id: jobId, err });
          throw err;
        }
      }),
    ),
  );
}
