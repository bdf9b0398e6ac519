import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { listJobsFor } from '../../../lib/jobs/service';

export const handler = httpEndpoint(jobRoutes.list, ({ identity }) => listJobsFor(identity));
