import { httpEndpoint } from '../../../lib/api/endpoint';
import { claimsPlatformRoutes } from '../../../lib/sends/claims-platform-routes';
import { listSubmissions } from '../../../lib/sends/claims-platform-service';

export const handler = httpEndpoint(claimsPlatformRoutes.submissions, ({ identity, params }) =>
  listSubmissions(identity, params.id),
);
