import { sweepPendingBilling } from '../../lib/billing/sweep-service';
import { loadSecrets } from '../../lib/config';
import { withSignalsFlushed } from '../../lib/observability/flush';

export const handler = withSignalsFlushed(async () => {
  await loadSecrets();
  return sweepPendingBilling();
});
