import { claimRoutes } from '../../../lib/claims/routes';
import { updateClaim } from '../../../lib/claims/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.patch, ({ identity, params, body }) =>
  updateClaim(identity, params.id, body),
);
