import '../../lib/pipelines'; // recovery restarts and fails jobs through their pipeline's declaration
import { runWatchdog } from '../../lib/orchestrator/recovery';

export const handler = async () => runWatchdog();
