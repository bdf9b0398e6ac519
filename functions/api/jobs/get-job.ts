import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { showJob } from '../../../lib/job-actions/service';

export const handler = httpEndpoint(jobRoutes.get, ({ identity, params }) => showJob(identity, params.id));
