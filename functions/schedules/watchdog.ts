import '../../lib/pipelines'; // recovery restarts and fails jobs through their pipeline's declaration
import { loadSecrets } from '../../lib/config';
import { withSignalsFlushed } from '../../lib/observability/flush';
import { runWatchdog } from '../../lib/orchestrator/recovery';

export const handler = withSignalsFlushed(async () => {
  await loadSecrets();
  return runWatchdog();
});
