import { queueExpiredArchives } from '../../lib/purge/service';
import { loadSecrets } from '../../lib/config';
import { withSignalsFlushed } from '../../lib/observability/flush';
import { logger } from '../../lib/observability/logger';

export const handler = withSignalsFlushed(async () => {
  await loadSecrets();
  const queued = await queueExpiredArchives();
  logger.info('daily purge queued expired archives', { queued });
  return { queued };
});
