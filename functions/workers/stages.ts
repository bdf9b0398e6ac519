import { sqsWorker } from '../../lib/background/sqs-worker';
import { handleStageMessage, stageMessage } from '../../lib/orchestrator/engine';

export const handler = sqsWorker('stages', stageMessage, (message) => handleStageMessage(message));
