import { billingRoutes } from '../../../lib/billing/routes';
import { getBillingSummary } from '../../../lib/billing/summary-service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(billingRoutes.summary, ({ identity }) => getBillingSummary(identity));
