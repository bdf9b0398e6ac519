import { sqsWorker } from '../../lib/background/sqs-worker';
import { normalizeMessage, normalizeStagedPhoto } from '../../lib/photos/normalize';

export const handler = sqsWorker('photos', normalizeMessage, async (message) => {
  await normalizeStagedPhoto(message);
});
