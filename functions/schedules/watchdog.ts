import { runWatchdog } from '../../lib/orchestrator/recovery';

export const handler = async () => runWatchdog();
