/**
 * Photo uploads (spec: Uploads): POST /api/upload-photos and /append take a
 * manifest of the browser's files, POST /api/upload-photos/{id}/confirm the
 * files that arrived. An upload may start with PDF contents lists among (or
 * instead of) its photos: the job then starts in importing_pdf and the lists
 * have their own slots and confirm (./document-upload-service.ts). Appends
 * take photos only.
 *
 * Start and append write nothing until all of the manifest is valid. Each file
 * gets a presigned POST straight to the bucket, limited by content-length-range
 * to its declared size, so the bytes reserved against MAX_PHOTO_UPLOAD_MB when
 * the URLs are issued are an upper bound of what can land.
 *
 * Confirm checks each named file's header (spec: "The header is checked to
 * confirm an image, then the response is sent"), creates the StagedPhoto in its
 * own group and queues the upright-JPEG re-encode (./normalize-service.ts).
 * Anything that did not arrive or is not an image lands in skipped_photos; a
 * non-image is deleted from the bucket. Confirm is idempotent: a photo row is
 * created only if its index is free, in the same transaction that adds its
 * bytes to file_size_bytes, so a repeated confirm neither duplicates rows nor
 * counts bytes twice. A repeat answers with the same staged photos and
 * re-queues any re-encode still pending.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { recordActivity } from '../activity/service';
import type { Identity } from '../auth/identity-rules';
import { presignedUploadForm } from '../blob/presigned-post';
import { blobKeys } from '../blob/keys';
import { deleteObject, headObject, readObjectHead } from '../blob/objects';
import { settings } from '../config';
import { ConflictError, InvalidRequestError, NotFoundError, TooLargeError } from '../errors';
import { getJob, putNewJob } from '../jobs/job-store';
import { type Job, newJobRecord } from '../jobs/job-record-rules';
import { jobView } from '../jobs/view';
import { normalizeCapturedAt, SNIFF_HEAD_BYTES, sniffImage } from '../media/sniff';
import { logger } from '../observability/logger';
import { dispatch } from '../queue/dispatch';
import { withRetry } from '../retry';
import { getRoom } from '../rooms/store';
import { JOB_NOT_FOUND, loadJobForTeam } from '../jobs/access-service';
import { loadRoomForTeam } from '../rooms/access-service';
import { plural } from '../text';
import { confirmDocumentUploads, presignDocumentUploads } from './document-upload-service';
import { raisePhotoNextIndex, reservePhotoBatch } from './photo-job-store';
import type { NormalizeMessage } from './queue-schemas';
import { decodeMetaFilename, encodeMetaFilename, photoObjectKeys } from './rules';
import type { AppendPhotosInput, ConfirmPhotosInput, SkippedPhoto, UploadPhotosInput, UploadSlot } from './schemas';
import { getStagedPhotos, insertStagedPhotos, newStagedPhoto, PHOTO_TRANSACTION_RETRY } from './staged-photo-store';
import type { StagedPhoto } from './staged-photo-record-rules';
import {
  arrivedUploadProblem,
  batchBytes,
  batchIndices,
  confirmRequestProblem,
  EMPTY_FILE,
  manifestParts,
  manifestProblem,
  NOT_ARRIVED,
  newPdfDocuments,
  nextIndexAfter,
  overCapDetail,
  PHOTO_UPLOAD_STATUSES,
  photoCapBytes,
  photoCountHint,
  photoUploadContentType,
  reservationCeiling,
  sniffedTypeProblem,
  startingStatus,
  takesPhotosProblem,
  unknownDocumentsProblem,
} from './upload-rules';
import { stagedPhotoView } from './view';

type Batch = Pick<UploadPhotosInput, 'files' | 'captured_ats'>;

/** Bucket and queue calls in flight per request. */
const BUCKET_CALLS_IN_FLIGHT = 8;

const jobPrefixOf = (job: Pick<Job, 'team_id' | 'claim_id' | 'id'>) =>
  blobKeys.jobPrefix(job.team_id, job.claim_id, job.id);

/** 409 unless the job is a photo job that still takes photos. */
function assertTakesPhotos(job: Pick<Job, 'source_type' | 'status'>): void {
  const problem = takesPhotosProblem(job);
  if (problem) throw new ConflictError(problem);
}

/** Rejects a manifest with the spec's status (400, or 413 over a size limit) before anything is written. */
function checkManifest(files: Batch['files'], append: boolean): void {
  const problem = manifestProblem(files, { capBytes: photoCapBytes(settings().MAX_PHOTO_UPLOAD_MB), append });
  if (!problem) return;
  throw problem.status === 413 ? new TooLargeError(problem.detail) : new InvalidRequestError(problem.detail);
}

/**
 * One presigned POST per file. The signed fields carry what the confirm step
 * reads back from the object's metadata: the original filename
 * (percent-encoded, as metadata travels in headers), the browser's capture
 * date (normalised) and the orig number. An empty file gets no slot: it is
 * reported in skipped_photos at once.
 */
async function issueUploads(job: Pick<Job, 'team_id' | 'claim_id' | 'id'>, batch: Batch, indices: number[]) {
  const config = settings();
  const uploads: UploadSlot[] = [];
  const skipped: SkippedPhoto[] = [];
  const prefix = jobPrefixOf(job);
  await Promise.all(
    batch.files.map(async (file, i) => {
      const index = indices[i];
      if (file.size === 0) {
        skipped.push({ filename: file.filename, reason: EMPTY_FILE, index });
        return;
      }
      const { filename, incomingKey } = photoObjectKeys(prefix, index);
      const capturedAt = normalizeCapturedAt(batch.captured_ats?.[i] ?? null);
      const post = await presignedUploadForm(
        incomingKey,
        {
          maxBytes: file.size,
          // Fields become eq conditions of the signed policy.
          fields: {
            'Content-Type': photoUploadContentType(file.content_type),
            'x-amz-meta-original-filename': encodeMetaFilename(file.filename),
            'x-amz-meta-index': String(index),
            ...(capturedAt ? { 'x-amz-meta-captured-at': capturedAt } : {}),
          },
        },
        config.PRESIGNED_URL_TTL_SECONDS,
      );
      uploads.push({
        index,
        filename,
        original_filename: file.filename,
        url: post.url,
        fields: post.fields,
        max_bytes: file.size,
      });
    }),
  );
  uploads.sort((a, b) => a.index - b.index);
  return { uploads, skipped_photos: skipped };
}

/**
 * POST /api/upload-photos: a new photo job with this batch's photo bytes
 * reserved, in awaiting_grouping, or in importing_pdf when the manifest lists
 * PDF contents lists (each with its slot and PdfDocument entry). Photos are
 * numbered as the manifest lists them, PDFs left out; captured_ats stays
 * aligned to the whole manifest.
 */
export async function startPhotoUpload(identity: Identity, body: UploadPhotosInput) {
  const room = await loadRoomForTeam(identity, body.room_id);
  checkManifest(body.files, false);
  const { photos, pdfs } = manifestParts(body.files);
  const count = photos.length;
  const indices =
    body.start_index !== undefined
      ? batchIndices(count, { startIndex: body.start_index })
      : batchIndices(count, { counterAfter: count });
  const id = randomUUID();
  const documents = newPdfDocuments(jobPrefixOf({ team_id: room.team_id, claim_id: room.claim_id, id }), pdfs);
  const status = startingStatus(documents);
  const job = newJobRecord({ id, room, userId: identity.user.id, sourceType: 'photo', status });
  job.photo_bytes_reserved = batchBytes(photos);
  job.photo_next_index = nextIndexAfter(0, indices);
  job.photo_count_hint = photoCountHint(body.photo_count_hint, count);
  if (documents.length > 0) job.pdf_documents = documents;
  await putNewJob(job);
  const issued = await issueUploads(
    job,
    { files: photos, captured_ats: body.captured_ats && photos.map((p) => body.captured_ats![p.position]) },
    indices,
  );
  const documentSlots = await presignDocumentUploads(documents);
  const emptyDocuments = documents.flatMap((d) =>
    d.state === 'skipped' ? [{ filename: d.original_filename, reason: EMPTY_FILE, index: null }] : [],
  );
  await recordActivity(identity.actor, {
    team_id: room.team_id,
    action_type: 'upload_photos',
    action_label:
      pdfs.length === 0
        ? `Uploaded ${plural(count, 'photo')}`
        : count === 0
          ? `Uploaded ${plural(pdfs.length, 'contents list')} (PDF)`
          : `Uploaded ${plural(count, 'photo')} and ${plural(pdfs.length, 'contents list')} (PDF)`,
    target: room.name,
    entity_type: 'job',
    entity_id: job.id,
    restorable: false,
  });
  return {
    job: jobView(job),
    uploads: issued.uploads,
    documents: documentSlots,
    skipped_photos: [...issued.skipped_photos, ...emptyDocuments],
  };
}

/**
 * POST /api/upload-photos/{id}/append: more photos for a photo job that is
 * still taking them. The batch's bytes and (without start_index) its numbers
 * are taken in one conditional ADD: it happens only when the job is in
 * awaiting_grouping or importing_pdf and the running total stays within
 * MAX_PHOTO_UPLOAD_MB, so parallel appends can never overshoot the cap.
 */
export async function appendPhotoUpload(identity: Identity, jobId: string, body: AppendPhotosInput) {
  const job = await loadJobForTeam(identity, jobId);
  assertTakesPhotos(job);
  checkManifest(body.files, true);
  const count = body.files.length;
  const bytes = batchBytes(body.files);
  const capBytes = photoCapBytes(settings().MAX_PHOTO_UPLOAD_MB);
  const serial = body.start_index === undefined;
  const reserved = await reservePhotoBatch(
    job.id,
    { bytes, count: serial ? count : null, ceiling: reservationCeiling(bytes, capBytes) },
    PHOTO_UPLOAD_STATUSES,
  );
  if (!reserved) {
    const now = await getJob(job.id, true);
    if (!now) throw new NotFoundError(JOB_NOT_FOUND);
    assertTakesPhotos(now);
    throw new TooLargeError(overCapDetail(capBytes));
  }
  let after = reserved;
  let indices: number[];
  if (serial) {
    indices = batchIndices(count, { counterAfter: reserved.photo_next_index });
  } else {
    indices = batchIndices(count, { startIndex: body.start_index! });
    // Keep the counter past every number used, so a later serial append cannot collide (never moves it back).
    after = (await raisePhotoNextIndex(job.id, nextIndexAfter(0, indices))) ?? after;
  }
  const issued = await issueUploads(after, body, indices);
  await recordActivity(identity.actor, {
    team_id: job.team_id,
    action_type: 'upload_photos',
    action_label: `Added ${plural(count, 'photo')} to an upload`,
    target: (await getRoom(job.room_id))?.name ?? 'Photo upload',
    entity_type: 'job',
    entity_id: job.id,
    restorable: false,
  });
  return { job: jobView(after), uploads: issued.uploads, documents: [], skipped_photos: issued.skipped_photos };
}

type Inspection =
  | { kind: 'existing'; photo: StagedPhoto; requeue: boolean }
  | { kind: 'new'; photo: StagedPhoto }
  | { kind: 'skipped'; entry: SkippedPhoto };

/** What arrived for photo `index`: the existing row, a new row to write, or why it is skipped (a refused upload is deleted). */
async function inspect(job: Job, index: number, existing: StagedPhoto | undefined): Promise<Inspection> {
  const { filename, key, incomingKey } = photoObjectKeys(jobPrefixOf(job), index);
  const head = await headObject(incomingKey);
  if (existing)
    return { kind: 'existing', photo: existing, requeue: head !== null && existing.unreadable_reason === null };
  if (!head) return { kind: 'skipped', entry: { filename, reason: NOT_ARRIVED, index } };
  const originalFilename = decodeMetaFilename(head.metadata['original-filename']) ?? filename;
  const drop = async (reason: string): Promise<Inspection> => {
    await deleteObject(incomingKey);
    return { kind: 'skipped', entry: { filename: originalFilename, reason, index } };
  };
  const refused = arrivedUploadProblem({ size: head.size, metaIndex: head.metadata.index }, index);
  if (refused) return drop(refused);
  const bytes = await readObjectHead(incomingKey, SNIFF_HEAD_BYTES);
  if (!bytes) return { kind: 'skipped', entry: { filename: originalFilename, reason: NOT_ARRIVED, index } };
  const notPhoto = sniffedTypeProblem(sniffImage(bytes));
  if (notPhoto) return drop(notPhoto);
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
          if (!now) throw new NotFoundError(JOB_NOT_FOUND);
          assertTakesPhotos(now);
          throw new ConflictError('The job changed while the photos were being confirmed; try again.');
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

/** The photos part of a confirm: staged photos for what arrived, skipped_photos for the rest. */
async function confirmPhotos(job: Job, requested: number[]) {
  const indices = [...new Set(requested)].sort((a, b) => a - b);
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
  return { staged: [...created, ...raced, ...already].sort((a, b) => a.index - b.index), skipped };
}

/**
 * POST /api/upload-photos/{id}/confirm: the photos the browser finished
 * POSTing become staged photos; the contents lists named in `documents` are
 * recorded and their read starts once all are (./document-upload-service.ts).
 * 400, with nothing written, when it names neither or a contents list the job does not have.
 */
export async function confirmPhotoUpload(identity: Identity, jobId: string, body: ConfirmPhotosInput) {
  const job = await loadJobForTeam(identity, jobId);
  assertTakesPhotos(job);
  const problem = confirmRequestProblem(body) ?? unknownDocumentsProblem(job.pdf_documents ?? [], body.documents ?? []);
  if (problem) throw new InvalidRequestError(problem);
  const photos = body.indices?.length ? await confirmPhotos(job, body.indices) : { staged: [], skipped: [] };
  const skippedDocuments = body.documents?.length ? await confirmDocumentUploads(job, body.documents) : [];
  const after = (await getJob(job.id, true)) ?? job;
  return {
    job: jobView(after),
    staged_photos: photos.staged.map(stagedPhotoView),
    skipped_photos: [...photos.skipped, ...skippedDocuments],
  };
}
