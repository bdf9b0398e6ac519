import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { cancelJob } from '../../../lib/job-actions/service';

export const handler = httpEndpoint(jobRoutes.cancel, ({ identity, params }) => cancelJob(identity, params.id));
