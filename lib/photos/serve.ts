/**
 * Reading staged photos: the job's list (GET /api/jobs/{id}/staged-photos)
 * and the capability URL that serves one photo (GET /api/photos/{job_id}/{filename},
 * spec: Capability URLs). The photo route answers 302 to a short-lived
 * presigned GET, so S3 serves the bytes and HTTP Range.
 */
import type { Identity } from '../auth/identity';
import { isSafeFileName, presignedGet } from '../blob/client';
import { readObjectHead } from '../blob/objects';
import { SNIFF_HEAD_BYTES, sniffImage, type ImageType } from '../media/sniff';
import { settings } from '../config';
import { notFound } from '../http/errors';
import { HttpResponse } from '../http/response';
import { loadJobForTeam } from '../tenancy/scope';
import { getStagedPhoto, listStagedPhotos, type StagedPhoto } from './staged-photo';
import { stagedPhotoView } from './view';

export const PHOTO_NOT_FOUND = 'Photo not found';

export async function listStagedPhotosFor(identity: Identity, jobId: string) {
  const job = await loadJobForTeam(identity, jobId);
  return (await listStagedPhotos(job.id)).map(stagedPhotoView);
}

/** GET /api/jobs/{id}/photos: the capability URLs of the job's source photos. */
export async function listSourcePhotosFor(identity: Identity, jobId: string) {
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

/**
 * The index a stored photo name carries: orig_0001.jpg → 1. Staged photo
 * names are <word>_<index>[...]: the capability route finds the row with one
 * read instead of scanning the job.
 */
export function indexFromFilename(filename: string): number | null {
  const m = /^[A-Za-z]+_(\d{1,6})(?:[._-]|$)/.exec(filename);
  return m ? Number(m[1]) : null;
}

async function findPhoto(jobId: string, filename: string): Promise<StagedPhoto | null> {
  // One path segment of safe characters, no '..' (the shared capability-name rule).
  if (!isSafeFileName(filename)) return null;
  const index = indexFromFilename(filename);
  if (index === null) return null;
  const photo = await getStagedPhoto(jobId, index);
  return photo && photo.filename === filename ? photo : null;
}

const IMAGE_MEDIA_TYPES: Record<Exclude<ImageType, 'bmp'>, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  gif: 'image/gif',
  tiff: 'image/tiff',
  heic: 'image/heic',
};

/**
 * The Content-Type an original upload is served with: what its header bytes
 * are, never what the browser declared (a stored text/html would otherwise be
 * rendered by the browser). Null when the bytes are gone or no longer an image.
 */
async function verifiedContentType(key: string): Promise<string | null> {
  const head = await readObjectHead(key, SNIFF_HEAD_BYTES);
  const type = head ? sniffImage(head) : null;
  return type && type !== 'bmp' ? IMAGE_MEDIA_TYPES[type] : null;
}

/**
 * 302 to the photo's bytes. Before the background re-encode has run the
 * original upload is served (the row's incoming_key) with its sniffed type;
 * afterwards the upright JPEG the service wrote. A name that is not one safe
 * path segment, an unknown job or photo, or a photo whose upload could not be
 * read all answer the same 404.
 */
export async function photoRedirect(jobId: string, filename: string): Promise<HttpResponse> {
  const photo = await findPhoto(jobId, filename);
  if (!photo || photo.unreadable_reason) throw notFound(PHOTO_NOT_FOUND);
  const key = photo.normalized ? photo.key : photo.incoming_key;
  const contentType = photo.normalized ? 'image/jpeg' : await verifiedContentType(key);
  if (!contentType) throw notFound(PHOTO_NOT_FOUND);
  return HttpResponse.redirect(await presignedGet(key, settings().PRESIGNED_URL_TTL_SECONDS, { contentType }));
}
