/**
 * The photos queue worker's use case: one message is the crop of a drawn
 * segment or the re-encode of an uploaded photo.
 */
import { normalizeStagedPhoto } from './normalize-service';
import type { PhotosQueueMessage } from './queue-schemas';
import { ensureSegmentCropped } from './segment-service';

export async function handlePhotosMessage(message: PhotosQueueMessage): Promise<void> {
  if ('kind' in message && message.kind === 'segment') await ensureSegmentCropped(message.job_id, message.index);
  else await normalizeStagedPhoto(message);
}
