import { sqsWorker } from '../../lib/background/sqs-worker';
import '../../lib/pipelines'; // registers the pipelines this worker runs
import { handleStageMessage, stageMessage } from '../../lib/orchestrator/engine';

export const handler = sqsWorker('stages', stageMessage, (message) => handleStageMessage(message));
