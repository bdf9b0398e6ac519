import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { getJobLogs } from '../../../lib/job-actions/service';

export const handler = httpEndpoint(jobRoutes.logs, ({ identity, params }) => getJobLogs(identity, params.id));
