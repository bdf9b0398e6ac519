/**
 * The stale-upload sweep (spec: uploads abandoned for over a day are swept;
 * a schedule here, backed by the bucket's AbortIncompleteMultipartUpload rule).
 * Reads only the open-uploads index, oldest first; each upload is first
 * marked 'expired' (conditional on still being open, so a complete that got
 * there first wins) and then its multipart upload is aborted.
 */
import { logger } from '../observability/logger';
import { STALE_UPLOAD_MS } from './rules';
import { abortMultipart } from './multipart-store';
import { openUploadsCreatedBefore, transitionUpload } from './upload-store';

export interface SweepResult {
  expired: number;
  failed: number;
}

export async function sweepStaleUploads(now = new Date(), maxAgeMs = STALE_UPLOAD_MS): Promise<SweepResult> {
  const cutoff = new Date(now.getTime() - maxAgeMs);
  const result: SweepResult = { expired: 0, failed: 0 };
  for await (const upload of openUploadsCreatedBefore(cutoff)) {
    try {
      const expired = await transitionUpload(upload.id, ['open'], 'expired', now);
      if (!expired) continue; // completed or aborted meanwhile
      await abortMultipart(upload.s3_key, upload.s3_upload_id);
      result.expired++;
    } catch (err) {
      // The bucket lifecycle rule still aborts the S3 side after a day; the next run retries the row.
      result.failed++;
      logger.error('stale upload sweep failed for one upload', { upload_id: upload.id, error: String(err) });
    }
  }
  logger.info('stale upload sweep', { cutoff: cutoff.toISOString(), ...result });
  return result;
}
