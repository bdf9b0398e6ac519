import { claimRoutes } from '../../../lib/claims/routes';
import { unarchiveClaimFor } from '../../../lib/claims/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.unarchive, ({ identity, params }) =>
  unarchiveClaimFor(identity, params.id),
);
