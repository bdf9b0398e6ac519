import { sweepPendingBilling } from '../../lib/billing/settlement-service';
import { loadSecrets } from '../../lib/config';

export const handler = async () => {
  await loadSecrets();
  return sweepPendingBilling();
};
