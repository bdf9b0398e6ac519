import { httpEndpoint } from '../../../lib/api/endpoint';
import { dashboardRoutes } from '../../../lib/dashboard/routes';
import { getDashboardMetrics } from '../../../lib/dashboard/service';

export const handler = httpEndpoint(dashboardRoutes.metrics, ({ identity }) => getDashboardMetrics(identity));
