/**
 * Making the crops of user-drawn segments (spec: Photo pipeline (live path) 7).
 * The segment endpoint writes one StagedPhoto row per box (is_segment,
 * segment_of, crop) and queues {kind: 'segment', job_id, index} on the photos
 * queue; this crops the original's upright JPEG to the box, puts it at the
 * segment's key and marks the row normalized. The pipeline calls
 * ensureSegmentCropped too, so a crop the worker has not made yet is made on
 * demand.
 *
 * Workers only: loads sharp (lib/media/images.ts).
 *
 * Safe on redelivery and against a concurrent clear or re-segment: a crop is
 * the same bytes every time, and one whose row vanished meanwhile is deleted
 * again so no orphan is left.
 */
import { deleteObject, putJpeg, readObject } from '../blob/objects';
import { JobLog } from '../jobs/log-store';
import { cropJpeg, normalizePhoto, UnreadableImageError } from '../media/images';
import { logger } from '../observability/logger';
import { getStagedPhoto, updateStagedPhoto } from './staged-photo-store';
import type { StagedPhoto } from './staged-photo-record-rules';

export type SegmentCropOutcome =
  | 'cropped'
  | 'already-done'
  | 'missing-row'
  | 'not-a-segment'
  | 'unreadable'
  | 'removed';

/** Thrown while the original's bytes are neither uploaded nor re-encoded yet: the message is retried. */
class OriginalNotReadyError extends Error {
  override readonly name = 'OriginalNotReadyError';
}

/**
 * Makes the crop of segment `index` unless it exists. 'removed': the row was
 * cleared while the crop was made (the crop is deleted again); 'unreadable':
 * the original is gone or cannot be decoded, so the segment is soft-deleted
 * with the reason.
 */
export async function ensureSegmentCropped(jobId: string, index: number): Promise<SegmentCropOutcome> {
  const segment = await getStagedPhoto(jobId, index);
  if (!segment) return 'missing-row';
  if (!segment.is_segment || segment.segment_of === null || !segment.crop) {
    logger.warn('segment crop: the row is not a segment', { job_id: jobId, index });
    return 'not-a-segment';
  }
  if (segment.normalized) return 'already-done';
  if (segment.unreadable_reason) return 'unreadable';

  const original = await getStagedPhoto(jobId, segment.segment_of);
  let upright: Buffer;
  try {
    upright = await uprightOriginal(original);
  } catch (err) {
    if (!(err instanceof UnreadableImageError)) throw err;
    await updateStagedPhoto(jobId, index, { deleted: true, unreadable_reason: err.message });
    await new JobLog(jobId).warn(
      `A segment of ${segment.original_filename} could not be cut and was removed: ${err.message}`,
    );
    return 'unreadable';
  }

  const crop = await cropJpeg(upright, segment.crop);
  await putJpeg(segment.key, crop.jpeg);
  const updated = await updateStagedPhoto(jobId, index, {
    normalized: true,
    width: crop.width,
    height: crop.height,
    size_bytes: crop.jpeg.length,
  });
  if (!updated) {
    await deleteObject(segment.key);
    return 'removed';
  }
  return 'cropped';
}

/**
 * The original's upright JPEG: the stored one once re-encoded, otherwise the
 * upload re-encoded here in memory (the original's own re-encode still owns
 * its row and its upload, so nothing of the original is written).
 */
async function uprightOriginal(original: StagedPhoto | null): Promise<Buffer> {
  if (!original) throw new UnreadableImageError('the photo it was cut from is gone');
  if (original.unreadable_reason) throw new UnreadableImageError(original.unreadable_reason);
  if (!original.normalized) {
    const upload = await readObject(original.incoming_key);
    if (upload) return (await normalizePhoto(upload.body)).jpeg;
    // The upload is deleted once the re-encode is stored: read the row again for the stored JPEG.
    const now = await getStagedPhoto(original.job_id, original.index);
    if (!now?.normalized) {
      if (now?.unreadable_reason) throw new UnreadableImageError(now.unreadable_reason);
      throw new OriginalNotReadyError(
        `photo ${original.index} of job ${original.job_id} is not uploaded or re-encoded yet`,
      );
    }
  }
  const stored = await readObject(original.key);
  if (!stored) throw new UnreadableImageError('the photo it was cut from is missing from storage');
  return stored.body;
}
