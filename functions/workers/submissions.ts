import { sqsWorker } from '../../lib/background/sqs-worker';
import { submissionMessage } from '../../lib/sends/claims-platform-schemas';
import { handleSubmissionMessage } from '../../lib/sends/claims-platform-worker-service';

export const handler = sqsWorker('submissions', submissionMessage, handleSubmissionMessage);
