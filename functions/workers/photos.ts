import { sqsWorker } from '../../lib/background/sqs-worker';
import { handlePhotosMessage, photosQueueMessage } from '../../lib/photos/segments';

export const handler = sqsWorker('photos', photosQueueMessage, handlePhotosMessage);
