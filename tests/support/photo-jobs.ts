/**
 * Photo jobs as the Process click finds them, written straight to the stores
 * (no upload, re-encode or contents-list read runs): for tests of what the
 * click and the run do, not of how the photos arrived.
 */
import { randomUUID } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { mediaBucket, s3 } from '../../lib/blob/client';
import { blobKeys } from '../../lib/blob/keys';
import { putNewJob } from '../../lib/jobs/job-store';
import { type Job, newJobRecord } from '../../lib/jobs/job-record-rules';
import { pdfFilename, photoObjectKeys } from '../../lib/photos/rules';
import { insertStagedPhotos, newStagedPhoto } from '../../lib/photos/staged-photo-store';
import { newPdfDocuments } from '../../lib/photos/upload-rules';

/**
 * A photo job in `room` with one photo, `jpeg` already upright in the bucket,
 * awaiting_grouping. The photo was uploaded as `filename` (orig_0000.jpg), or,
 * with `contentsList`, taken out of the contents list `filename` already read
 * (pdf_0000.jpg, labelled `<filename>, page 1` and described by the list).
 * Either way its label holds `filename`, which a gateway script can match.
 */
export async function photoJobAtGrouping(
  room: { id: string; claim_id: string; team_id: string },
  userId: string,
  photo: { filename: string; jpeg: Buffer; contentsList?: boolean },
): Promise<Job> {
  const id = randomUUID();
  const prefix = blobKeys.jobPrefix(room.team_id, room.claim_id, id);
  const job = newJobRecord({ id, room, userId, sourceType: 'photo', status: 'awaiting_grouping' });
  if (photo.contentsList) {
    const [document] = newPdfDocuments(prefix, [{ filename: photo.filename, size: 2048 }]);
    job.pdf_documents = [{ ...document, state: 'read', pages: 1, photos: 1 }];
  } else {
    job.photo_count_hint = 1;
    job.photo_next_index = 1;
  }
  await putNewJob(job);
  const stored = photo.contentsList
    ? { filename: pdfFilename(0), key: `${prefix}photos/${pdfFilename(0)}` }
    : photoObjectKeys(prefix, 0);
  await s3().send(
    new PutObjectCommand({ Bucket: mediaBucket(), Key: stored.key, Body: photo.jpeg, ContentType: 'image/jpeg' }),
  );
  const row = {
    ...newStagedPhoto({
      jobId: id,
      index: 0,
      filename: stored.filename,
      key: stored.key,
      incomingKey: stored.key,
      originalFilename: photo.contentsList ? `${photo.filename}, page 1` : photo.filename,
      capturedAt: null,
      sizeBytes: photo.jpeg.length,
    }),
    normalized: true,
    ...(photo.contentsList ? { source_description: 'Brass desk lamp' } : {}),
  };
  if ((await insertStagedPhotos(id, [row], ['awaiting_grouping'])) !== 'inserted')
    throw new Error(`the photo of job ${id} was not written`);
  return job;
}
