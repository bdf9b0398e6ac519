import { sweepPendingBilling } from '../../lib/billing/settlement';
import { loadSecrets } from '../../lib/config';

export const handler = async () => {
  await loadSecrets();
  return sweepPendingBilling();
};
