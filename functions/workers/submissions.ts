import { sqsWorker } from '../../lib/background/sqs-worker';
import { submissionItemMessage } from '../../lib/sends/claims-platform-schemas';
import { handleSubmissionItem } from '../../lib/sends/claims-platform-worker-service';

export const handler = sqsWorker('submissions', submissionItemMessage, handleSubmissionItem);
