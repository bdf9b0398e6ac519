import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { quoteJob } from '../../../lib/job-actions/service';

export const handler = httpEndpoint(jobRoutes.quote, ({ identity, params }) => quoteJob(identity, params.id));
