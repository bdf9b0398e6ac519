import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { getJobFor } from '../../../lib/jobs/service';

export const handler = httpEndpoint(jobRoutes.get, ({ identity, params }) => getJobFor(identity, params.id));
