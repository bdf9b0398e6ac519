import { sqsWorker } from '../../lib/background/sqs-worker';
import { measureJobDuration } from '../../lib/jobs/probe-service';
import { probeMessage } from '../../lib/jobs/queue-schemas';

export const handler = sqsWorker('probe', probeMessage, (message, record) =>
  measureJobDuration(message.job_id, Number(record.attributes?.ApproximateReceiveCount ?? 1)),
);
