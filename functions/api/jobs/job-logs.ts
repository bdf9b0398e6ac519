import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { jobLogsFor } from '../../../lib/jobs/service';

export const handler = httpEndpoint(jobRoutes.logs, ({ identity, params }) => jobLogsFor(identity, params.id));
