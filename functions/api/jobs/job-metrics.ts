import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { jobMetricsFor } from '../../../lib/jobs/service';

export const handler = httpEndpoint(jobRoutes.metrics, ({ identity, params }) => jobMetricsFor(identity, params.id));
