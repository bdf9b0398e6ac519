import '../../lib/pipelines'; // recovery restarts and fails runs through their pipeline's declaration and kind
import { runWatchdogParts } from '../../lib/background/watchdog-parts';
import { loadSecrets } from '../../lib/config';
import { withSignalsFlushed } from '../../lib/observability/flush';
import { runWatchdog } from '../../lib/orchestrator/recovery';

// Each part runs whatever the others do; the report names a part that failed (lib/background/watchdog-parts.ts).
export const handler = withSignalsFlushed(async () => {
  await loadSecrets();
  return runWatchdogParts({
    runs: () => runWatchdog(),
  });
});
