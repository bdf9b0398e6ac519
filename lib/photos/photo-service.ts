/**
 * Reading a job's staged photos: the job's list (GET /api/jobs/{id}/staged-photos),
 * its source photo URLs (GET /api/jobs/{id}/photos), the capability URL that
 * serves one photo (GET /api/photos/{job_id}/{filename}, spec: Capability URLs)
 * and how many photo AI requests the job makes. The photo route answers 302 to
 * a short-lived presigned GET, so S3 serves the bytes and HTTP Range.
 */
import type { Identity } from '../auth/identity-rules';
import { isSafeFileName, presignedGet } from '../blob/client';
import { headObject, readObjectHead } from '../blob/objects';
import { blobKeys } from '../blob/keys';
import { NotFoundError } from '../errors';
import { HttpResponse } from '../http/response';
import { SNIFF_HEAD_BYTES, sniffImage } from '../media/sniff';
import { isJobObjectKey } from '../jobs/job-object-rules';
import { getJob } from '../jobs/job-store';
import { loadJobForTeam } from '../jobs/access-service';
import { aiGroups } from './grouping-rules';
import { indexFromFilename, isPipelinePicture, servedContentType } from './rules';
import { getStagedPhoto, listStagedPhotos } from './staged-photo-store';
import type { StagedPhoto } from './staged-photo-record-rules';
import { stagedPhotoView } from './view';

const PHOTO_NOT_FOUND = 'Photo not found';

export async function listStagedPhotosOfJob(identity: Identity, jobId: string) {
  const job = await loadJobForTeam(identity, jobId);
  return (await listStagedPhotos(job.id)).map(stagedPhotoView);
}

/** GET /api/jobs/{id}/photos: the capability URLs of the job's source photos. */
export async function listSourcePhotos(identity: Identity, jobId: string) {
  const job = await loadJobForTeam(identity, jobId);
  const photos = (await listStagedPhotos(job.id)).filter((p) => !p.deleted);
  return {
    job_id: job.id,
    photos: photos.map((p) => ({
      filename: p.filename,
      original_filename: p.original_filename,
      url: stagedPhotoView(p).url,
    })),
  };
}

/** How many photo AI requests (and photo credits) the job's groups make now (spec: Limits, Photo). */
export async function countPhotoAiRequests(jobId: string): Promise<number> {
  return aiGroups(await listStagedPhotos(jobId)).length;
}

async function findPhoto(jobId: string, filename: string): Promise<StagedPhoto | null> {
  // One path segment of safe characters, no '..' (the shared capability-name rule).
  if (!isSafeFileName(filename)) return null;
  const index = indexFromFilename(filename);
  if (index === null) return null;
  const photo = await getStagedPhoto(jobId, index);
  return photo && photo.filename === filename ? photo : null;
}

/** The served type of an original upload from its header bytes; null when they are gone or no longer an image. */
async function verifiedContentType(key: string): Promise<string | null> {
  const head = await readObjectHead(key, SNIFF_HEAD_BYTES);
  return servedContentType(head ? sniffImage(head) : null);
}

/**
 * 302 to the photo's bytes. Before the background re-encode has run the
 * original upload is served (the row's incoming_key) with its sniffed type;
 * afterwards the upright JPEG the service wrote. A name that is not one safe
 * path segment, an unknown job or photo, or a photo whose upload could not be
 * read all answer the same 404.
 */
export async function redirectToPhoto(jobId: string, filename: string): Promise<HttpResponse> {
  if (isSafeFileName(filename) && isPipelinePicture(filename)) return redirectToPipelinePicture(jobId, filename);
  const photo = await findPhoto(jobId, filename);
  if (!photo || photo.unreadable_reason) throw new NotFoundError(PHOTO_NOT_FOUND);
  let key = photo.normalized ? photo.key : photo.incoming_key;
  // A kept original (a homeowner's file, staged where it lies) is signed only when it is one of the job's objects.
  if (!photo.normalized && photo.original_kept) {
    const job = await getJob(jobId, false);
    if (!job || !isJobObjectKey(job, key)) throw new NotFoundError(PHOTO_NOT_FOUND);
  }
  let contentType = photo.normalized ? 'image/jpeg' : await verifiedContentType(key);
  if (!contentType && !photo.normalized) {
    // The re-encode may have written the JPEG and removed the upload between the row's read and the upload's.
    const now = await findPhoto(jobId, filename);
    if (now?.normalized && !now.unreadable_reason) {
      key = now.key;
      contentType = 'image/jpeg';
    }
  }
  if (!contentType) throw new NotFoundError(PHOTO_NOT_FOUND);
  return HttpResponse.redirect(await presignedGet(key, { contentType, disposition: 'inline' }));
}

/** A picture a pipeline cut for an item (no staged-photo row): served when it is in the job's photos. */
async function redirectToPipelinePicture(jobId: string, filename: string): Promise<HttpResponse> {
  const job = await getJob(jobId, false);
  if (!job) throw new NotFoundError(PHOTO_NOT_FOUND);
  const key = `${blobKeys.jobPrefix(job.team_id, job.claim_id, job.id)}photos/${filename}`;
  if (!(await headObject(key))) throw new NotFoundError(PHOTO_NOT_FOUND);
  return HttpResponse.redirect(await presignedGet(key, { contentType: 'image/jpeg', disposition: 'inline' }));
}
