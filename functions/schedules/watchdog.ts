import '../../lib/pipelines'; // recovery restarts and fails jobs through their pipeline's declaration
import { loadSecrets } from '../../lib/config';
import { runWatchdog } from '../../lib/orchestrator/recovery';

export const handler = async () => {
  await loadSecrets();
  return runWatchdog();
};
