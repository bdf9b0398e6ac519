import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { getJobMetrics } from '../../../lib/job-actions/service';

export const handler = httpEndpoint(jobRoutes.metrics, ({ identity, params }) => getJobMetrics(identity, params.id));
