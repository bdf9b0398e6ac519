import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { startReadTheRest } from '../../../lib/pipelines/photo-read-the-rest/service';

export const handler = httpEndpoint(jobRoutes.readTheRest, ({ identity, params }) =>
  startReadTheRest(identity, params.id),
);
