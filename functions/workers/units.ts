import { sqsWorker } from '../../lib/background/sqs-worker';
import '../../lib/pipelines'; // registers the pipelines this worker runs
import { handleUnitMessage, unitMessage } from '../../lib/orchestrator/engine';
import { deliveryOf } from '../../lib/queue/delivery';

export const handler = sqsWorker('units', unitMessage, (message, record) =>
  handleUnitMessage(message, deliveryOf('units', record)),
);
