import { claimRoutes } from '../../../lib/claims/routes';
import { unarchiveClaim } from '../../../lib/claims/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.unarchive, ({ identity, params }) =>
  unarchiveClaim(identity, params.id),
);
