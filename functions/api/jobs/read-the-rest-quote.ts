import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { quoteReadTheRest } from '../../../lib/pipelines/photo-read-the-rest/service';

export const handler = httpEndpoint(jobRoutes.readTheRestQuote, ({ identity, params }) =>
  quoteReadTheRest(identity, params.id),
);
