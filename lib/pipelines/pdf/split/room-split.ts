/**
 * The end of a claim-level contents-list import's read (spec: PDF import 10):
 * the photos the reader took out are split by room (room-split-rules.ts), a
 * missing room is created, and each room gets one new photo job in
 * awaiting_grouping holding its photos; then the run is recorded on the
 * ImportBatch.
 *
 * Safe to repeat after a dead worker: rooms and jobs have ids derived from the
 * reader and the room's name, a room job's photos are copied and their rows
 * written before the job row exists (so a half-filled job is never seen), and
 * a room whose job exists is done. Nothing is handed on when the batch has
 * moved on to another run.
 */
import pLimit from 'p-limit';
import { blobKeys } from '../../../blob/keys';
import { copyObject } from '../../../blob/objects';
import { getImportBatch, updateImportBatch } from '../../../imports/store';
import type { BatchJob } from '../../../imports/batch-record-rules';
import { batchCounters, endedBatchStatus, settledDocuments } from '../../../imports/rules';
import { derivedId } from '../../../inventory/item-rules';
import { getJob, putJobOnce } from '../../../jobs/job-store';
import { type Job, newJobRecord, type PdfDocument } from '../../../jobs/job-record-rules';
import type { JobLog } from '../../../jobs/log-store';
import { pdfFilename } from '../../../photos/rules';
import { putStagedPhotoRows } from '../../../photos/staged-photo-store';
import type { StagedPhoto } from '../../../photos/staged-photo-record-rules';
import { listClaimRooms, putRoomOnce, type Room } from '../../../rooms/store';
import { plural } from '../../../text';
import { renumberedGroups, roomBuckets } from './room-split-rules';

/** Object copies in flight while a room job is filled. */
const COPIES_IN_FLIGHT = 16;

/** The reader's photos for one room become a new photo job's grouping pile; returns that job's id. */
async function fillRoomJob(reader: Job, room: Room, jobId: string, photos: StagedPhoto[]): Promise<void> {
  const prefix = blobKeys.jobPrefix(reader.team_id, reader.claim_id, jobId);
  const groups = renumberedGroups(photos.map((p) => p.group_index));
  const rows = photos.map((photo, index): StagedPhoto => {
    const filename = pdfFilename(index);
    const key = `${prefix}photos/${filename}`;
    return {
      ...photo,
      job_id: jobId,
      id: derivedId('contents-list-photo', jobId, index),
      index,
      filename,
      key,
      incoming_key: key,
      group_index: groups[index],
    };
  });
  const limit = pLimit(COPIES_IN_FLIGHT);
  await Promise.all(
    photos.map((photo, i) =>
      limit(async () => {
        if (!(await copyObject(photo.key, rows[i].key)))
          throw new Error(`photo ${photo.filename} of the read is missing from storage`);
      }),
    ),
  );
  await putStagedPhotoRows(rows);
  const job = newJobRecord({
    id: jobId,
    room,
    userId: reader.created_by_user_id,
    sourceType: 'photo',
    status: 'awaiting_grouping',
    fileSizeBytes: rows.reduce((n, r) => n + r.size_bytes, 0),
  });
  job.photo_next_index = rows.length;
  job.photo_count_hint = 0;
  job.import_batch_id = reader.reads_batch_id ?? null;
  await putJobOnce(job);
}

/**
 * Hands the reader's photos (rows numbered in the reader, with their source
 * fields) to one new awaiting_grouping job per room, then records the run's
 * outcome on the batch: each file's state, the jobs, the counters and status.
 */
export async function handToRoomJobs(
  reader: Job,
  rows: StagedPhoto[],
  documentFilenameOf: (row: StagedPhoto) => string,
  documents: PdfDocument[],
  log: JobLog,
): Promise<void> {
  const batch = await getImportBatch(reader.reads_batch_id as string);
  // Recorded already (a repeated stage), or the batch is gone or runs another reader.
  if (batch?.read_job_id === reader.id && batch.status !== 'importing') return;
  if (!batch || batch.read_job_id !== reader.id) {
    await log.warn('The import has moved on to another run: nothing was handed on.');
    return;
  }
  const rooms = await listClaimRooms(reader.claim_id, false);
  const buckets = roomBuckets(
    rows.map((r) => ({ room: r.source_room, documentFilename: documentFilenameOf(r) })),
    rooms,
  );
  const jobs: BatchJob[] = [];
  for (const bucket of buckets) {
    const newRoomId = derivedId('contents-list-room', reader.id, bucket.key);
    const room =
      rooms.find((r) => r.id === bucket.roomId) ??
      (await putRoomOnce({ id: reader.claim_id, team_id: reader.team_id }, bucket.name, newRoomId));
    const jobId = derivedId('contents-list-job', reader.id, bucket.key);
    const photos = bucket.positions.map((p) => rows[p]);
    if (!(await getJob(jobId, true))) await fillRoomJob(reader, room, jobId, photos);
    const groups = new Set(photos.map((p) => p.group_index)).size;
    await log.info(
      `${room.name}: ${plural(photos.length, 'photo')} in ${plural(groups, 'group')}${room.id === newRoomId ? ' (new room)' : ''}`,
    );
    jobs.push({
      job_id: jobId,
      room_id: room.id,
      room_name: room.name,
      photos: photos.length,
      room_created: room.id === newRoomId,
    });
  }
  const settled = settledDocuments(batch.documents, documents, null);
  const counters = batchCounters(settled);
  await updateImportBatch(
    batch.id,
    { status: 'importing', readJobId: reader.id },
    {
      documents: settled,
      ...counters,
      jobs: [...batch.jobs, ...jobs],
      status: endedBatchStatus(counters),
      finished_at: new Date().toISOString(),
    },
  );
}
