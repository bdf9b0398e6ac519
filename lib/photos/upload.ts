/**
 * POST /api/upload-photos and /append (spec: Uploads). The body is a manifest of the browser's files; nothing is
 * written until all of it is valid. Each file gets a presigned POST straight to
 * the bucket, limited by content-length-range to its declared size, so the
 * bytes reserved against MAX_PHOTO_UPLOAD_MB when the URLs are issued are an
 * upper bound of what can land. The confirm call (lib/photos/confirm.ts) then
 * checks what arrived.
 */
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import type { Identity } from '../auth/identity';
import { recordActivity } from '../activity/log';
import { mediaBucket, s3 } from '../blob/client';
import { blobKeys } from '../blob/keys';
import { settings } from '../config';
import { conflict, HttpError, notFound, payloadTooLarge } from '../http/errors';
import { getJob, newJobRecord, putNewJob, updateJob, type Job } from '../jobs/job';
import { jobView } from '../jobs/view';
import { normalizeCapturedAt } from '../media/sniff';
import { getRoom } from '../rooms/room';
import { JOB_NOT_FOUND, loadJobForTeam, loadRoomForTeam } from '../tenancy/scope';
import {
  batchBytes,
  batchIndices,
  encodeMetaFilename,
  manifestProblem,
  nextIndexAfter,
  overCapDetail,
  PHOTO_UPLOAD_STATUSES,
  photoCapBytes,
  photoObjectKeys,
  reservationCeiling,
} from './rules';
import type { AppendPhotosInput, UploadPhotosInput } from './schemas';

export interface SkippedPhoto {
  filename: string;
  reason: string;
  index: number | null;
}

export interface UploadSlot {
  index: number;
  filename: string;
  original_filename: string;
  url: string;
  fields: Record<string, string>;
  max_bytes: number;
}

type Batch = Pick<UploadPhotosInput, 'files' | 'captured_ats'>;

/**
 * The Content-Type a photo's POST must carry: the type the browser declared
 * when it is an image type the service accepts, else a neutral binary type.
 * The policy holds the form to exactly this value, so no upload can store an
 * object S3 would serve as, say, text/html; what is served is the sniffed type
 * anyway (lib/photos/serve.ts).
 */
export const PHOTO_CONTENT_TYPES = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/gif',
  'image/tiff',
  'image/heic',
  'image/heif',
  'image/avif',
]);
export const UNDECLARED_PHOTO_TYPE = 'application/octet-stream';

export function photoUploadContentType(declared: string | undefined): string {
  const type = (declared ?? '').trim().toLowerCase();
  return PHOTO_CONTENT_TYPES.has(type) ? type : UNDECLARED_PHOTO_TYPE;
}

const jobPrefixOf = (job: Pick<Job, 'team_id' | 'claim_id' | 'id'>) =>
  blobKeys.jobPrefix(job.team_id, job.claim_id, job.id);

export const EMPTY_FILE = 'The file is empty.';

/** Rejects a manifest with the spec's status before anything is written. */
function checkManifest(files: Batch['files'], append: boolean): void {
  const problem = manifestProblem(files, { capBytes: photoCapBytes(settings().MAX_PHOTO_UPLOAD_MB), append });
  if (problem) throw new HttpError(problem.status, problem.detail);
}

/**
 * One presigned POST per file. The signed fields carry what the confirm step
 * reads back from the object's metadata: the original filename
 * (percent-encoded, as metadata travels in headers), the browser's capture
 * date (normalised) and the orig number. An empty file gets no slot: it is
 * reported in skipped_photos at once.
 */
export async function issueUploads(job: Pick<Job, 'team_id' | 'claim_id' | 'id'>, batch: Batch, indices: number[]) {
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
      const post = await createPresignedPost(s3(), {
        Bucket: mediaBucket(),
        Key: incomingKey,
        Conditions: [['content-length-range', 1, file.size]],
        Fields: {
          // Fields become eq conditions of the signed policy.
          'Content-Type': photoUploadContentType(file.content_type),
          'x-amz-meta-original-filename': encodeMetaFilename(file.filename),
          'x-amz-meta-index': String(index),
          ...(capturedAt ? { 'x-amz-meta-captured-at': capturedAt } : {}),
        },
        Expires: config.PRESIGNED_URL_TTL_SECONDS,
      });
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

/** POST /api/upload-photos: a new photo job in awaiting_grouping with this batch's bytes reserved. */
export async function startPhotoUpload(identity: Identity, body: UploadPhotosInput) {
  const room = await loadRoomForTeam(identity, body.room_id);
  checkManifest(body.files, false);
  const count = body.files.length;
  const indices =
    body.start_index !== undefined
      ? batchIndices(count, { startIndex: body.start_index })
      : batchIndices(count, { counterAfter: count });
  const job = newJobRecord({ room, userId: identity.user.id, sourceType: 'photo', status: 'awaiting_grouping' });
  job.photo_bytes_reserved = batchBytes(body.files);
  job.photo_next_index = nextIndexAfter(0, indices);
  await putNewJob(job);
  const issued = await issueUploads(job, body, indices);
  await recordActivity(identity.actor, {
    team_id: room.team_id,
    action_type: 'upload_photos',
    action_label: `Uploaded ${count} photo${count === 1 ? '' : 's'}`,
    target: room.name,
    entity_type: 'job',
    entity_id: job.id,
    restorable: false,
  });
  return { job: jobView(job), ...issued };
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
  const reserved = await updateJob(job.id, {
    add: { photo_bytes_reserved: bytes, ...(serial ? { photo_next_index: count } : {}) },
    expectStatus: PHOTO_UPLOAD_STATUSES,
    condition:
      'source_type = :photo AND (attribute_not_exists(photo_bytes_reserved) OR photo_bytes_reserved <= :ceiling)',
    values: { ':photo': 'photo', ':ceiling': reservationCeiling(bytes, capBytes) },
  });
  if (!reserved) {
    const now = await getJob(job.id, true);
    if (!now) throw notFound(JOB_NOT_FOUND);
    assertTakesPhotos(now);
    throw payloadTooLarge(overCapDetail(capBytes));
  }
  let after = reserved;
  let indices: number[];
  if (serial) {
    indices = batchIndices(count, { counterAfter: reserved.photo_next_index });
  } else {
    indices = batchIndices(count, { startIndex: body.start_index! });
    const next = nextIndexAfter(0, indices);
    // Keep the counter past every number used, so a later serial append cannot collide (never moves it back).
    after =
      (await updateJob(job.id, {
        set: { photo_next_index: next },
        condition: 'attribute_not_exists(photo_next_index) OR photo_next_index < :next',
        values: { ':next': next },
      })) ?? after;
  }
  const issued = await issueUploads(after, body, indices);
  await recordActivity(identity.actor, {
    team_id: job.team_id,
    action_type: 'upload_photos',
    action_label: `Added ${count} photo${count === 1 ? '' : 's'} to an upload`,
    target: (await getRoom(job.room_id))?.name ?? 'Photo upload',
    entity_type: 'job',
    entity_id: job.id,
    restorable: false,
  });
  return { job: jobView(after), ...issued };
}

/** Only a photo job in awaiting_grouping or importing_pdf takes more photos (spec: States and transitions). */
export function assertTakesPhotos(job: Pick<Job, 'source_type' | 'status'>): void {
  if (job.source_type !== 'photo') throw conflict('Photos can only be added to a photo upload job.');
  if (!(PHOTO_UPLOAD_STATUSES as readonly string[]).includes(job.status)) {
    throw conflict(
      `Photos can only be added while the job is awaiting grouping or importing a PDF; this job is ${job.status}.`,
    );
  }
}
