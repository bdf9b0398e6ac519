import { httpEndpoint } from '../../../lib/http/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { jobLogsFor } from '../../../lib/jobs/service';

export const handler = httpEndpoint(jobRoutes.logs, ({ identity, params }) => jobLogsFor(identity, params.id));
