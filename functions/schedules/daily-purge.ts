import { queueExpiredArchives } from '../../lib/purge/purge';
import { logger } from '../../lib/observability/logger';

export const handler = async () => {
  const queued = await queueExpiredArchives();
  logger.info('daily purge queued expired archives', { queued });
  return { queued };
};
