/**
 * Grouping edits larger than one DynamoDB transaction (100 items) against the
 * embedded DynamoDB: a 150-photo edit is all or nothing. The conflict halfway
 * is real: between the first and the second transaction the job row is moved
 * on (as POST process would) or a row the edit needs is gone.
 */
import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../../lib/db/client';
import { GROUPING_STATUSES } from '../../lib/photos/grouping-rules';
import { insertStagedPhotos, newStagedPhoto } from '../../lib/photos/staged-photo-store';
import type { StagedPhoto } from '../../lib/photos/staged-photo-record-rules';
import { getJob, updateJob } from '../../lib/jobs/job-store';
import { startJob } from '../../lib/orchestrator/engine';
import { PHOTO_PIPELINE } from '../../lib/orchestrator/pipeline-catalog';
import {
  PHOTO_WRITE_LOCK_MS,
  photoWriteLockFree,
  writeStagedPhotos,
  type StagedPhotoWrite,
} from '../../lib/photos/photo-write-store';
import { doc, getRow, seedJob, setFields, table } from '../support/aws';

const PHOTOS = 150;

async function photoRows(jobId: string): Promise<Record<string, any>[]> {
  const out: Record<string, any>[] = [];
  let ExclusiveStartKey: Record<string, any> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': `JOB#${jobId}`, ':p': 'PHOTO#' },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    out.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

/** A groupable photo job with 150 staged photos, each in its own group. */
async function jobWithPhotos(): Promise<{ jobId: string; photos: StagedPhoto[] }> {
  const jobId = await seedJob({ id: randomUUID(), claim_id: randomUUID(), team_id: randomUUID() }, 'photo');
  await setFields(`JOB#${jobId}`, 'JOB', { status: 'awaiting_grouping', file_size_bytes: 0 });
  const photos = Array.from({ length: PHOTOS }, (_, index) =>
    newStagedPhoto({
      jobId,
      index,
      filename: `orig_${index}.jpg`,
      key: `k/${index}`,
      incomingKey: `i/${index}`,
      originalFilename: `p${index}.jpg`,
      capturedAt: null,
      sizeBytes: 10,
    }),
  );
  for (let i = 0; i < photos.length; i += 99)
    expect(await insertStagedPhotos(jobId, photos.slice(i, i + 99), ['awaiting_grouping'])).toBe('inserted');
  return { jobId, photos };
}

/** 30 groups of 5 (photos k, k+30, …, k+120): 120 rows change group. */
const regroupWrites = (photos: StagedPhoto[]): StagedPhotoWrite[] =>
  photos.filter((p) => p.index >= 30).map((p) => ({ update: { index: p.index, set: { group_index: p.index % 30 } } }));

/** Runs `beforeSecond` just before the edit's second transaction reaches DynamoDB. */
function beforeSecondTransaction(jobId: string, beforeSecond: () => Promise<void>) {
  const client = db();
  const send = client.send.bind(client);
  let transactions = 0;
  return jest.spyOn(client, 'send').mockImplementation((async (command: unknown, ...rest: unknown[]) => {
    if (
      command instanceof TransactWriteCommand &&
      JSON.stringify(command.input).includes(`JOB#${jobId}`) &&
      ++transactions === 2
    )
      await beforeSecond();
    return (send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
  }) as never);
}

afterEach(() => jest.restoreAllMocks());

describe('a grouping edit of 150 photos', () => {
  it('is written whole when nothing conflicts, and leaves the job unlocked', async () => {
    const { jobId, photos } = await jobWithPhotos();
    expect(await writeStagedPhotos(jobId, regroupWrites(photos), GROUPING_STATUSES)).toBe('written');
    const rows = await photoRows(jobId);
    expect(rows.map((r) => r.group_index)).toEqual(photos.map((p) => p.index % 30));
    const job = await getRow(`JOB#${jobId}`, 'JOB');
    expect(job).not.toHaveProperty('photo_write_lock');
  });

  it('leaves nothing half-applied when the job moves on between two transactions', async () => {
    const { jobId, photos } = await jobWithPhotos();
    const before = await photoRows(jobId);
    beforeSecondTransaction(jobId, () => setFields(`JOB#${jobId}`, 'JOB', { status: 'processing' }));
    expect(await writeStagedPhotos(jobId, regroupWrites(photos), GROUPING_STATUSES)).toBe('job-state');
    expect(await photoRows(jobId)).toEqual(before);
  });

  it('leaves nothing half-applied when a row it needs vanishes between two transactions', async () => {
    const { jobId, photos } = await jobWithPhotos();
    // soft-delete all 150, like "select all, delete"
    const writes: StagedPhotoWrite[] = photos.map((p) => ({ update: { index: p.index, set: { deleted: true } } }));
    const before = await photoRows(jobId);
    const last = `PHOTO#${String(PHOTOS - 1).padStart(6, '0')}`;
    beforeSecondTransaction(jobId, async () => {
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [{ Delete: { TableName: table(), Key: { pk: `JOB#${jobId}`, sk: last } } }],
        }),
      );
    });
    expect(await writeStagedPhotos(jobId, writes, GROUPING_STATUSES)).toBe('row-changed');
    expect(await photoRows(jobId)).toEqual(before.filter((r) => r.sk !== last));
    expect(await getRow(`JOB#${jobId}`, 'JOB')).not.toHaveProperty('photo_write_lock');
  });

  it('takes back its segment rows and restores the rows it deleted', async () => {
    const { jobId, photos } = await jobWithPhotos();
    const before = await photoRows(jobId);
    // like segment: new rows, the original hidden, the earlier rows removed (here 100 of them)
    const puts = Array.from({ length: 60 }, (_, i) => ({
      put: { ...photos[0], id: randomUUID(), index: 1000 + i, group_index: 1000 + i, is_segment: true, segment_of: 0 },
    }));
    const writes: StagedPhotoWrite[] = [
      ...puts,
      { update: { index: 0, set: { hidden_by_segments: true } } },
      ...photos.slice(50).map((p) => ({ delete: { index: p.index } })),
    ];
    beforeSecondTransaction(jobId, () => setFields(`JOB#${jobId}`, 'JOB', { status: 'processing' }));
    expect(await writeStagedPhotos(jobId, writes, GROUPING_STATUSES)).toBe('job-state');
    expect(await photoRows(jobId)).toEqual(before);
  });

  it('refuses, writing nothing, while another large edit holds the job', async () => {
    const { jobId, photos } = await jobWithPhotos();
    const before = await photoRows(jobId);
    await setFields(`JOB#${jobId}`, 'JOB', {
      photo_write_lock: 'someone-else',
      photo_write_lock_until: Date.now() + PHOTO_WRITE_LOCK_MS,
    });
    expect(await writeStagedPhotos(jobId, regroupWrites(photos), GROUPING_STATUSES)).toBe('job-state');
    expect(await writeStagedPhotos(jobId, [{ update: { index: 3, set: { group_index: 0 } } }], GROUPING_STATUSES)).toBe(
      'job-state',
    );
    expect(await photoRows(jobId)).toEqual(before);
    // an expired lock (its holder died) no longer blocks
    await setFields(`JOB#${jobId}`, 'JOB', { photo_write_lock_until: Date.now() - 1 });
    expect(await writeStagedPhotos(jobId, regroupWrites(photos), GROUPING_STATUSES)).toBe('written');
  });

  it('keeps processing from starting while an edit holds the job, in the start write itself', async () => {
    const { jobId } = await jobWithPhotos();
    await setFields(`JOB#${jobId}`, 'JOB', {
      photo_write_lock: 'an-edit',
      photo_write_lock_until: Date.now() + PHOTO_WRITE_LOCK_MS,
    });
    const job = (await getJob(jobId))!;
    // The lock was taken after the caller's check: the start write alone must refuse.
    expect(await startJob(job, PHOTO_PIPELINE, {}, [photoWriteLockFree()])).toBeNull();
    expect(await getJob(jobId)).toEqual(job);
    // The same guard lets a write through once the lock has expired (its holder died).
    await setFields(`JOB#${jobId}`, 'JOB', { photo_write_lock_until: Date.now() - 1 });
    expect(
      await updateJob(jobId, ['job'], { set: { current_stage: 'checked' }, ...photoWriteLockFree() }),
    ).not.toBeNull();
  });

  it('sends a chunk again when it lost to a concurrent transaction, and gives up after a bounded number of tries', async () => {
    const { jobId } = await jobWithPhotos();
    const client = db();
    const send = client.send.bind(client);
    let conflicts = 2;
    let sent = 0;
    const lost = () =>
      new TransactionCanceledException({
        message: 'Transaction cancelled',
        $metadata: {},
        CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }],
      });
    jest.spyOn(client, 'send').mockImplementation((async (command: unknown, ...rest: unknown[]) => {
      if (command instanceof TransactWriteCommand && JSON.stringify(command.input).includes(`JOB#${jobId}`)) {
        sent++;
        if (conflicts-- > 0) throw lost();
      }
      return (send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    }) as never);
    expect(await writeStagedPhotos(jobId, [{ update: { index: 3, set: { group_index: 0 } } }], GROUPING_STATUSES)).toBe(
      'written',
    );
    expect(sent).toBe(3);
    expect((await photoRows(jobId)).find((r) => r.index === 3)?.group_index).toBe(0);

    // A table that keeps conflicting: the edit fails with DynamoDB's error, after 7 tries, and writes nothing.
    conflicts = Number.POSITIVE_INFINITY;
    sent = 0;
    const error = await writeStagedPhotos(
      jobId,
      [{ update: { index: 4, set: { group_index: 0 } } }],
      GROUPING_STATUSES,
    ).catch((e) => e);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    expect(sent).toBe(7);
    expect((await photoRows(jobId)).find((r) => r.index === 4)?.group_index).toBe(4);
  });
});
