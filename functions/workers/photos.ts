import { sqsWorker } from '../../lib/background/sqs-worker';
import { photosQueueMessage } from '../../lib/photos/queue-schemas';
import { handlePhotosMessage } from '../../lib/photos/worker-service';

export const handler = sqsWorker('photos', photosQueueMessage, handlePhotosMessage);
