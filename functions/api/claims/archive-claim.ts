import { claimRoutes } from '../../../lib/claims/routes';
import { archiveClaimFor } from '../../../lib/claims/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.archive, ({ identity, params }) =>
  archiveClaimFor(identity, params.id),
);
