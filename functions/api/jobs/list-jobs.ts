import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { listJobs } from '../../../lib/jobs/service';

export const handler = httpEndpoint(jobRoutes.list, ({ identity }) => listJobs(identity));
