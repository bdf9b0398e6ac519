import { sqsWorker } from '../../lib/background/sqs-worker';
import { purge } from '../../lib/purge/service';
import { purgeRequest } from '../../lib/purge/schemas';

export const handler = sqsWorker('purge', purgeRequest, (request) => purge(request));
