import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { quoteJobFor } from '../../../lib/jobs/service';

export const handler = httpEndpoint(jobRoutes.quote, ({ identity, params }) => quoteJobFor(identity, params.id));
