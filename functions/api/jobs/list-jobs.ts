import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { listJobs } from '../../../lib/job-actions/service';

export const handler = httpEndpoint(jobRoutes.list, ({ identity }) => listJobs(identity));
