import { sqsWorker } from '../../lib/background/sqs-worker';
import { measureJobDuration, probeMessage } from '../../lib/media/probe';

export const handler = sqsWorker('probe', probeMessage, (message, record) =>
  measureJobDuration(message.job_id, Number(record.attributes?.ApproximateReceiveCount ?? 1)),
);
