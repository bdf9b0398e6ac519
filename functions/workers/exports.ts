import { sqsWorker } from '../../lib/background/sqs-worker';
import { handleExportMessage } from '../../lib/exports/build-service';
import { exportMessage } from '../../lib/exports/schemas';

export const handler = sqsWorker('exports', exportMessage, handleExportMessage);
