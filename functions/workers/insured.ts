import { sqsWorker } from '../../lib/background/sqs-worker';
import { insuredRoundMessage } from '../../lib/insured/draft-schemas';
import { handleInsuredRoundMessage } from '../../lib/insured/submit-service';

export const handler = sqsWorker('insured', insuredRoundMessage, handleInsuredRoundMessage);
