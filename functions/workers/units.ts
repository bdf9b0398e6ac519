import { sqsWorker } from '../../lib/background/sqs-worker';
import '../../lib/pipelines'; // registers the pipelines this worker runs
import { handleUnitMessage, unitMessage } from '../../lib/orchestrator/engine';

export const handler = sqsWorker('units', unitMessage, (message, record) => handleUnitMessage(message, Number(record.attributes.ApproximateReceiveCount ?? 1)));
