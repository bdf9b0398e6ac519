import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { processJob } from '../../../lib/job-actions/service';

export const handler = httpEndpoint(jobRoutes.process, ({ identity, params }) => processJob(identity, params.id));
