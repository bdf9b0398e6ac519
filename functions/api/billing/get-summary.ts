import { billingRoutes } from '../../../lib/billing/routes';
import { billingSummaryFor } from '../../../lib/billing/summary';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(billingRoutes.summary, ({ identity }) => billingSummaryFor(identity));
