/**
 * Chunked video/audio upload use cases (spec: Uploads > Chunked upload;
 * States: video/audio upload rows). Bytes never pass through a
 * Lambda: init opens an S3 multipart upload, the browser PUTs parts to
 * presigned URLs, complete checks S3's part list and assembles the object,
 * then creates the job.
 */
import { randomUUID } from 'node:crypto';
import { recordActivity } from '../activity/service';
import { getClaim } from '../claims/store';
import { completeTrainingRecording } from '../training/sandbox-service';
import type { Identity } from '../auth/identity-rules';
import { prepaidBillingActive } from '../billing/credit-rules';
import { blobKeys } from '../blob/keys';
import { settings } from '../config';
import { ConflictError, InvalidRequestError, NotFoundError, TooLargeError, UnprocessableError } from '../errors';
import { getJob, putJobOnce } from '../jobs/job-store';
import { newJobRecord, type Job } from '../jobs/job-record-rules';
import { JobLog } from '../jobs/log-store';
import { jobView } from '../jobs/view';
import { logger } from '../observability/logger';
import { startJob } from '../orchestrator/start';
import { pipelineRefForSource } from '../orchestrator/pipeline-catalog';
import { dispatch } from '../queue/dispatch';
import { loadRoomForTeam } from '../rooms/access-service';
import { JOB_NOT_FOUND } from '../jobs/access-service';
import {
  baseName,
  checkAssembly,
  chunkSizeFor,
  contentTypeFor,
  isAllowedExtension,
  maxUploadBytes,
  partCountFor,
  partSize,
  partsOutOfRange,
  sanitizeFilename,
  tooLargeMessage,
  unsupportedTypeMessage,
  type UploadKind,
} from './rules';
import { headObject } from '../blob/objects';
import {
  abortMultipart,
  completeMultipart,
  createMultipart,
  isNoSuchUpload,
  listAllParts,
  presignPart,
  type StoredPart,
} from './multipart-store';
import { getUpload, putUpload, transitionUpload, type Upload, type UploadStatus } from './upload-store';

const UPLOAD_NOT_FOUND = 'Upload not found';

export interface InitUploadInput {
  kind: UploadKind;
  filename: string;
  room_id: string;
  total_size: number;
}

/** load_upload_for_team: 404 for a missing upload and for another team's upload. */
async function loadUploadForTeam(identity: Identity, uploadId: string): Promise<Upload> {
  const upload = await getUpload(uploadId);
  if (!upload || !(identity.isAdmin || upload.team_id === identity.team.id)) throw new NotFoundError(UPLOAD_NOT_FOUND);
  return upload;
}

const received = (parts: StoredPart[], upload: Pick<Upload, 'part_count'>) =>
  parts.map((p) => p.partNumber - 1).filter((i) => i >= 0 && i < upload.part_count);

const notOpenMessage = (status: UploadStatus) =>
  ({
    open: 'This upload is open.',
    completing: 'This upload is being completed.',
    completed: 'This upload is already completed.',
    aborted: 'This upload was aborted; start a new upload.',
    expired: 'This upload expired after a day without completing; start a new upload.',
  })[status];

/** POST /api/uploads/init. Validates before anything is written. */
export async function initUpload(identity: Identity, input: InitUploadInput) {
  const config = settings();
  const room = await loadRoomForTeam(identity, input.room_id);
  const filename = baseName(input.filename);
  if (!isAllowedExtension(input.kind, filename))
    throw new InvalidRequestError(unsupportedTypeMessage(input.kind, filename));
  if (input.total_size > maxUploadBytes(config)) throw new TooLargeError(tooLargeMessage(input.total_size, config));
  const chunkSize = chunkSizeFor(input.total_size, config);
  if (chunkSize === null) throw new TooLargeError(tooLargeMessage(input.total_size, config));

  const id = randomUUID();
  const jobId = randomUUID();
  const key = `${blobKeys.jobPrefix(room.team_id, room.claim_id, jobId)}media/${sanitizeFilename(filename)}`;
  const s3UploadId = await createMultipart(key, contentTypeFor(input.kind, filename));
  const now = new Date().toISOString();
  const upload: Upload = {
    id,
    team_id: room.team_id,
    claim_id: room.claim_id,
    room_id: room.id,
    user_id: identity.user.id,
    kind: input.kind,
    filename,
    total_size: input.total_size,
    chunk_size: chunkSize,
    part_count: partCountFor(input.total_size, chunkSize),
    s3_key: key,
    s3_upload_id: s3UploadId,
    job_id: jobId,
    status: 'open',
    created_at: now,
    updated_at: now,
    completed_at: null,
  };
  try {
    await putUpload(upload);
  } catch (err) {
    await abortMultipart(key, s3UploadId).catch(() => undefined);
    throw err;
  }
  return {
    upload_id: upload.id,
    chunk_size: upload.chunk_size,
    part_count: upload.part_count,
    received: [] as number[],
  };
}

/** POST /api/uploads/{id}/part-urls: one presigned PUT per requested index, signed for its exact size. */
export async function presignPartUrls(identity: Identity, uploadId: string, indices: number[]) {
  const upload = await loadUploadForTeam(identity, uploadId);
  if (upload.status !== 'open') throw new ConflictError(notOpenMessage(upload.status));
  const outOfRange = partsOutOfRange(indices, upload.part_count);
  if (outOfRange.length)
    throw new UnprocessableError(
      `Invalid request: ${outOfRange.map((p) => `${p.field}: ${p.message}`).join('; ')}`,
      outOfRange,
    );
  const ttl = settings().PRESIGNED_URL_TTL_SECONDS;
  const expiresAt = new Date(Date.now() + ttl * 1000).toISOString();
  const unique = [...new Set(indices)];
  const urls = await Promise.all(
    unique.map(async (index) => {
      const size = partSize(index, upload.total_size, upload.chunk_size);
      return {
        index,
        url: await presignPart(upload.s3_key, upload.s3_upload_id, index + 1, size, ttl),
        size,
        expires_at: expiresAt,
      };
    }),
  );
  return { urls };
}

/** Lists S3's parts; an open upload S3 no longer knows has expired (lifecycle rule) and is marked so. */
async function partsOf(upload: Upload): Promise<StoredPart[]> {
  try {
    return await listAllParts(upload.s3_key, upload.s3_upload_id);
  } catch (err) {
    if (!isNoSuchUpload(err)) throw err;
    if (upload.status === 'open') await transitionUpload(upload.id, ['open'], 'expired');
    throw new ConflictError(notOpenMessage('expired'));
  }
}

/** GET /api/uploads/{id}. */
export async function getUploadStatus(identity: Identity, uploadId: string) {
  const upload = await loadUploadForTeam(identity, uploadId);
  let indices: number[] = [];
  if (upload.status === 'open' || upload.status === 'completing') {
    try {
      indices = received(await listAllParts(upload.s3_key, upload.s3_upload_id), upload);
    } catch (err) {
      if (!isNoSuchUpload(err)) throw err;
      if (upload.status === 'completing') indices = [...Array(upload.part_count).keys()];
      else {
        const expired = await transitionUpload(upload.id, ['open'], 'expired');
        return statusView(expired ?? (await getUpload(upload.id)) ?? upload, []);
      }
    }
  } else if (upload.status === 'completed') {
    indices = [...Array(upload.part_count).keys()];
  }
  return statusView(upload, indices);
}

function statusView(upload: Upload, indices: number[]) {
  return {
    upload_id: upload.id,
    status: upload.status,
    chunk_size: upload.chunk_size,
    part_count: upload.part_count,
    received: indices,
    job_id: upload.status === 'completed' ? upload.job_id : null,
  };
}

/**
 * POST /api/uploads/{id}/complete. Every step can be repeated: the S3 object
 * is assembled once (a lost race finds it already there), the job row is put
 * only if absent (its id was chosen at init), and only the request that moves
 * the upload to 'completed' does the side effects (probe, activity, start).
 */
export async function completeUpload(identity: Identity, uploadId: string) {
  let upload = await loadUploadForTeam(identity, uploadId);
  if (upload.status === 'completed') return completedView(upload);
  if (upload.status === 'aborted' || upload.status === 'expired')
    throw new ConflictError(notOpenMessage(upload.status));

  if (upload.status === 'open') {
    const parts = await partsOf(upload);
    const check = checkAssembly(
      parts.map((p) => ({ index: p.partNumber - 1, size: p.size })),
      upload,
    );
    if (!check.ok) throw new InvalidRequestError(check.message);
    const claimed = await transitionUpload(upload.id, ['open'], 'completing');
    if (!claimed) {
      // Someone else moved it first: completed (answer the same job), completing (carry on idempotently), or gone.
      const now = (await getUpload(upload.id)) as Upload;
      if (now.status === 'completed') return completedView(now);
      if (now.status !== 'completing') throw new ConflictError(notOpenMessage(now.status));
      upload = now;
    } else {
      upload = claimed;
    }
    await assemble(upload, parts);
  } else {
    // 'completing': a concurrent or interrupted complete; finish what it started.
    await assemble(upload, null);
  }

  const job = await createJobOnce(upload);
  const completed = await transitionUpload(upload.id, ['completing'], 'completed');
  if (!completed) {
    const now = await getUpload(upload.id);
    if (now?.status === 'completed') return completedView(now);
    throw new ConflictError(notOpenMessage(now?.status ?? 'aborted'));
  }
  return afterCompletion(identity, completed, job);
}

/** CompleteMultipartUpload, tolerating a concurrent request that already did it. */
async function assemble(upload: Upload, parts: StoredPart[] | null): Promise<void> {
  try {
    const list = parts ?? (await listAllParts(upload.s3_key, upload.s3_upload_id));
    await completeMultipart(upload.s3_key, upload.s3_upload_id, list);
  } catch (err) {
    if (!isNoSuchUpload(err)) throw err;
    // S3 no longer knows the multipart upload: a concurrent complete assembled it (the object is there) or is doing so now.
    const size = (await headObject(upload.s3_key))?.size ?? null;
    if (size !== upload.total_size) {
      logger.warn('multipart upload gone but object not (yet) assembled', { upload_id: upload.id, size });
      throw new ConflictError('This upload is being completed; try again shortly.');
    }
  }
}

async function createJobOnce(upload: Upload): Promise<Job> {
  const record = newJobRecord({
    id: upload.job_id,
    room: { id: upload.room_id, claim_id: upload.claim_id, team_id: upload.team_id },
    userId: upload.user_id,
    sourceType: upload.kind,
    status: 'awaiting_confirmation',
    mediaKey: upload.s3_key,
    originalFilename: upload.filename,
    fileSizeBytes: upload.total_size,
  });
  return putJobOnce(record);
}

/**
 * The job is parked in awaiting_confirmation for pricing when prepaid billing
 * is on; with billing off the pipeline starts, when this deployment has one
 * for the source type. Without one the job stays parked (pipeline_available false).
 */
async function afterCompletion(identity: Identity, upload: Upload, job: Job) {
  const log = new JobLog(job.id);
  await log.info(
    `Upload complete: ${upload.filename} (${upload.total_size} bytes in ${upload.part_count} part${upload.part_count === 1 ? '' : 's'})`,
  );
  await dispatch('probe', { job_id: job.id });
  await recordActivity(identity.actor, {
    team_id: job.team_id,
    action_type: upload.kind === 'video' ? 'upload_video' : 'upload_audio',
    action_label: `Uploaded ${upload.kind} ${upload.filename}`,
    target: upload.filename,
    entity_type: 'job',
    entity_id: job.id,
    restorable: false,
  });
  const pipeline = pipelineRefForSource(upload.kind);
  let current = job;
  if ((await getClaim(job.claim_id))?.is_training) {
    // A training claim's recording becomes fixture items at once: no pipeline, no AI, no credits.
    current = (await completeTrainingRecording(job)) ?? (await getJob(job.id)) ?? job;
  } else if (prepaidBillingActive()) {
    await log.info('Awaiting confirmation: credits are spent when processing is confirmed');
  } else if (pipeline) {
    current = (await startJob(job, pipeline)) ?? (await getJob(job.id)) ?? job;
  } else {
    await log.warn(
      `No ${upload.kind} pipeline is available in this deployment yet; the job waits in awaiting_confirmation`,
    );
  }
  return { ...jobView(current), pipeline_available: Boolean(pipeline) };
}

async function completedView(upload: Upload) {
  const job = await getJob(upload.job_id);
  if (!job) throw new NotFoundError(JOB_NOT_FOUND);
  return { ...jobView(job), pipeline_available: Boolean(pipelineRefForSource(upload.kind)) };
}

/** DELETE /api/uploads/{id}: idempotent; a completed upload cannot be aborted. */
export async function abortUpload(identity: Identity, uploadId: string) {
  const upload = await loadUploadForTeam(identity, uploadId);
  if (upload.status === 'completed' || upload.status === 'completing')
    throw new ConflictError(`${notOpenMessage(upload.status)} It can no longer be aborted.`);
  let status: 'aborted' | 'expired' = upload.status === 'expired' ? 'expired' : 'aborted';
  if (upload.status === 'open') {
    const moved = await transitionUpload(upload.id, ['open'], 'aborted');
    if (!moved) {
      const now = await getUpload(upload.id);
      if (now?.status === 'completed' || now?.status === 'completing')
        throw new ConflictError(`${notOpenMessage(now.status)} It can no longer be aborted.`);
      status = now?.status === 'expired' ? 'expired' : 'aborted';
    }
  }
  // Repeated on every call so an abort interrupted after the row changed still reaches S3.
  await abortMultipart(upload.s3_key, upload.s3_upload_id);
  return { upload_id: upload.id, status };
}
