import { claimRoutes } from '../../../lib/claims/routes';
import { updateClaimFor } from '../../../lib/claims/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.patch, ({ identity, params, body }) =>
  updateClaimFor(identity, params.id, body),
);
