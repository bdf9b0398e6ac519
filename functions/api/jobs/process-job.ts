import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { processJobFor } from '../../../lib/jobs/service';

export const handler = httpEndpoint(jobRoutes.process, ({ identity, params }) => processJobFor(identity, params.id));
