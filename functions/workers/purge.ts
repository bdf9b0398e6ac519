import { sqsWorker } from '../../lib/background/sqs-worker';
import { purge } from '../../lib/purge/purge';
import { purgeRequest } from '../../lib/purge/requests';

export const handler = sqsWorker('purge', purgeRequest, (request) => purge(request));
