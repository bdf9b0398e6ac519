/**
 * POST /api/upload-photos/{id}/confirm: the browser names the files it
 * finished POSTing to the bucket. For each one the service checks the header
 * (spec: "The header is checked to confirm an image, then the response is
 * sent"), creates the StagedPhoto in its own group and queues the upright-JPEG
 * re-encode (lib/photos/normalize.ts). Anything that did not arrive or is not
 * an image lands in skipped_photos; a non-image is deleted from the bucket.
 *
 * Idempotent: a photo row is created only if its index is free, in the same
 * transaction that adds its bytes to file_size_bytes, so a repeated confirm
 * neither duplicates rows nor counts bytes twice. A repeat answers with the
 * same staged photos and re-queues any re-encode still pending.
 */
import pLimit from 'p-limit';
import type { Identity } from '../auth/identity';
import { blobKeys } from '../blob/keys';
import { conflict, notFound } from '../http/errors';
import { getJob, type Job } from '../jobs/job';
import { jobView } from '../jobs/view';
import { BMP_NOT_SUPPORTED, normalizeCapturedAt, SNIFF_HEAD_BYTES, sniffImage } from '../media/sniff';
import { logger } from '../observability/logger';
import { dispatch } from '../queue/dispatch';
import { JOB_NOT_FOUND, loadJobForTeam } from '../tenancy/scope';
import type { NormalizeMessage } from './normalize';
import { deleteObject, headObject, readObjectHead } from '../blob/objects';
import {
  decodeMetaFilename,
  PHOTO_UPLOAD_STATUSES,
  photoObjectKeys,
  SINGLE_PHOTO_MAX_BYTES,
  SINGLE_PHOTO_MAX_MB,
} from './rules';
import { withRetry } from '../retry';
import {
  getStagedPhotos,
  insertStagedPhotos,
  newStagedPhoto,
  PHOTO_TRANSACTION_RETRY,
  type StagedPhoto,
} from './staged-photo';
import { EMPTY_FILE, assertTakesPhotos, type SkippedPhoto } from './upload';
import { stagedPhotoView } from './view';

export const NOT_ARRIVED = 'The upload did not arrive; send the file again.';
export const NOT_AN_IMAGE = 'Not a readable image (the file header is not a supported photo format).';

type Inspection =
  | { kind: 'existing'; photo: StagedPhoto; requeue: boolean }
  | { kind: 'new'; photo: StagedPhoto }
  | { kind: 'skipped'; entry: SkippedPhoto };

/** Bucket calls in flight per confirm. */
const BUCKET_CALLS_IN_FLIGHT = 8;

async function inspect(job: Job, index: number, existing: StagedPhoto | undefined): Promise<Inspection> {
  const { filename, key, incomingKey } = photoObjectKeys(blobKeys.jobPrefix(job.team_id, job.claim_id, job.id), index);
  const head = await headObject(incomingKey);
  if (existing)
    return { kind: 'existing', photo: existing, requeue: head !== null && existing.unreadable_reason === null };
  if (!head) return { kind: 'skipped', entry: { filename, reason: NOT_ARRIVED, index } };
  const originalFilename = decodeMetaFilename(head.metadata['original-filename']) ?? filename;
  const drop = async (reason: string): Promise<Inspection> => {
    await deleteObject(incomingKey);
    return { kind: 'skipped', entry: { filename: originalFilename, reason, index } };
  };
  if (head.metadata.index !== undefined && head.metadata.index !== String(index))
    return drop('The upload does not belong to this photo number.');
  if (head.size === 0) return drop(EMPTY_FILE);
  if (head.size > SINGLE_PHOTO_MAX_BYTES)
    return drop(`Larger than the ${SINGLE_PHOTO_MAX_MB} MB limit for a single photo.`);
  const bytes = await readObjectHead(incomingKey, SNIFF_HEAD_BYTES);
  if (!bytes) return { kind: 'skipped', entry: { filename: originalFilename, reason: NOT_ARRIVED, index } };
  const type = sniffImage(bytes);
  if (!type) return drop(NOT_AN_IMAGE);
  if (type === 'bmp') return drop(BMP_NOT_SUPPORTED);
  const photo = newStagedPhoto({
    jobId: job.id,
    index,
    filename,
    key,
    incomingKey,
    originalFilename,
    capturedAt: normalizeCapturedAt(head.metadata['captured-at'] ?? null),
    sizeBytes: head.size,
  });
  return { kind: 'new', photo };
}

/** Rows still to write after a pass of insertAll (an index raced, or a transaction conflict). */
class PhotosPending extends Error {
  override readonly name = 'PhotosPending';
  constructor(readonly count: number) {
    super('could not record the staged photos: the job kept changing');
  }
}

/** Passes of insertAll before a confirm gives up on a job that keeps changing. */
const INSERT_PASSES = 9;

/**
 * Writes the new rows (99 per transaction with the job's byte counter). A
 * photo that appeared meanwhile (a concurrent confirm of the same index) is
 * taken as it is; a concurrent transaction on the job is retried.
 */
async function insertAll(
  job: Job,
  candidates: StagedPhoto[],
): Promise<{ created: StagedPhoto[]; raced: StagedPhoto[] }> {
  const created: StagedPhoto[] = [];
  const raced: StagedPhoto[] = [];
  let pending = candidates;
  if (pending.length === 0) return { created, raced };
  await withRetry(
    async () => {
      const retry: StagedPhoto[] = [];
      for (let i = 0; i < pending.length; i += 99) {
        const chunk = pending.slice(i, i + 99);
        const outcome = await insertStagedPhotos(job.id, chunk, PHOTO_UPLOAD_STATUSES);
        if (outcome === 'inserted') created.push(...chunk);
        else if (outcome === 'job-state') {
          const now = await getJob(job.id, true);
          if (!now) throw notFound(JOB_NOT_FOUND);
          assertTakesPhotos(now);
          throw conflict('The job changed while the photos were being confirmed; try again.');
        } else if (outcome === 'photo-exists') {
          const taken = await getStagedPhotos(
            job.id,
            chunk.map((p) => p.index),
          );
          raced.push(...taken.values());
          retry.push(...chunk.filter((p) => !taken.has(p.index)));
        } else retry.push(...chunk);
      }
      pending = retry;
      if (pending.length > 0) throw new PhotosPending(pending.length);
    },
    { ...PHOTO_TRANSACTION_RETRY, attempts: INSERT_PASSES, retryable: (err) => err instanceof PhotosPending },
  );
  return { created, raced };
}

export async function confirmPhotoUpload(identity: Identity, jobId: string, body: { indices: number[] }) {
  const job = await loadJobForTeam(identity, jobId);
  assertTakesPhotos(job);
  const indices = [...new Set(body.indices)].sort((a, b) => a - b);
  const existing = await getStagedPhotos(job.id, indices);
  const limit = pLimit(BUCKET_CALLS_IN_FLIGHT);
  const inspections = await Promise.all(indices.map((index) => limit(() => inspect(job, index, existing.get(index)))));

  const skipped = inspections.flatMap((x) => (x.kind === 'skipped' ? [x.entry] : []));
  const { created, raced } = await insertAll(
    job,
    inspections.flatMap((x) => (x.kind === 'new' ? [x.photo] : [])),
  );
  const already = inspections.flatMap((x) => (x.kind === 'existing' ? [x.photo] : []));
  const requeue = inspections.flatMap((x) => (x.kind === 'existing' && x.requeue ? [x.photo] : []));

  // The rows are written first: if queueing fails the request fails, and a retried confirm queues them again.
  await Promise.all(
    [...created, ...requeue].map((photo) =>
      limit(() => dispatch('photos', { job_id: job.id, index: photo.index } satisfies NormalizeMessage)),
    ),
  );
  if (skipped.length > 0) logger.info('photo confirm skipped files', { job_id: job.id, skipped: skipped.length });

  const after = (await getJob(job.id, true)) ?? job;
  const staged = [...created, ...raced, ...already].sort((a, b) => a.index - b.index);
  return { job: jobView(after), staged_photos: staged.map(stagedPhotoView), skipped_photos: skipped };
}
