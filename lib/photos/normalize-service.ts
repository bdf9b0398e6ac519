/**
 * The background re-encode of a confirmed photo (spec: Photo upload rules,
 * "Re-encoding to an upright RGB JPEG runs afterwards in the background,
 * replacing each file atomically"). One message per photo, {job_id, index}:
 *
 *   GetObject the incoming original → normalizePhoto → one PutObject of the
 *   upright JPEG to the photo's key → the row gets normalized, width, height,
 *   size_bytes, captured_at (EXIF wins, else the browser's date) → the
 *   incoming original is deleted.
 *
 * Safe on redelivery: each step can be repeated, and once the original is
 * gone a normalised photo is simply done. A file that cannot be decoded is
 * soft-deleted with its reason and a job log line, never retried.
 */
import { JobLog } from '../jobs/log-store';
import { normalizePhoto, UnreadableImageError } from '../media/images';
import { logger } from '../observability/logger';
import { deleteObject, putJpeg, readObject } from '../blob/objects';
import type { NormalizeMessage } from './queue-schemas';
import { getStagedPhoto, updateStagedPhoto } from './staged-photo-store';
import type { StagedPhoto } from './staged-photo-record-rules';

export type NormalizeOutcome = 'normalized' | 'already-done' | 'unreadable' | 'missing-row' | 'missing-original';

export async function normalizeStagedPhoto(message: NormalizeMessage): Promise<NormalizeOutcome> {
  const photo = await getStagedPhoto(message.job_id, message.index);
  if (!photo) {
    logger.warn('photo re-encode: no staged photo', { ...message });
    return 'missing-row';
  }
  if (photo.unreadable_reason) return 'already-done';
  // A segment is cut from its original (lib/photos/segment-service.ts), never re-encoded: its incoming_key is its own crop.
  if (photo.is_segment) return 'already-done';

  const original = await readObject(photo.incoming_key);
  if (!original) {
    if (photo.normalized) return 'already-done';
    // A duplicate delivery of this message may have re-encoded it (and removed the upload) since the row was read.
    if ((await getStagedPhoto(message.job_id, message.index))?.normalized) return 'already-done';
    await markUnreadable(photo.job_id, photo.index, photo.original_filename, 'the uploaded file is missing');
    return 'missing-original';
  }

  let result: Awaited<ReturnType<typeof normalizePhoto>>;
  try {
    result = await normalizePhoto(original.body);
  } catch (err) {
    if (!(err instanceof UnreadableImageError)) throw err;
    await markUnreadable(photo.job_id, photo.index, photo.original_filename, err.message);
    await deleteUpload(photo);
    return 'unreadable';
  }

  await putJpeg(photo.key, result.jpeg);
  await updateStagedPhoto(photo.job_id, photo.index, {
    normalized: true,
    width: result.width,
    height: result.height,
    size_bytes: result.jpeg.length,
    captured_at: result.capturedAt ?? photo.captured_at,
  });
  await deleteUpload(photo);
  return 'normalized';
}

/** The upload is done with once re-encoded or refused; a kept original (a homeowner's file) stays. */
async function deleteUpload(photo: StagedPhoto): Promise<void> {
  if (!photo.original_kept) await deleteObject(photo.incoming_key);
}

async function markUnreadable(jobId: string, index: number, originalFilename: string, reason: string) {
  await updateStagedPhoto(jobId, index, { deleted: true, unreadable_reason: reason });
  await new JobLog(jobId).warn(`Photo ${originalFilename} could not be read and was removed: ${reason}`);
}
