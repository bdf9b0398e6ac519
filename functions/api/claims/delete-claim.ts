import { claimRoutes } from '../../../lib/claims/routes';
import { hardDeleteClaim } from '../../../lib/purge/claim-deletion-service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.delete, ({ identity, params }) => hardDeleteClaim(identity, params.id));
