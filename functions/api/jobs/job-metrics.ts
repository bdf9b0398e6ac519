import { httpEndpoint } from '../../../lib/http/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { jobMetricsFor } from '../../../lib/jobs/service';

export const handler = httpEndpoint(jobRoutes.metrics, ({ identity, params }) => jobMetricsFor(identity, params.id));
