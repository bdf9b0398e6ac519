import { claimRoutes } from '../../../lib/claims/routes';
import { showClaim } from '../../../lib/claims/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.get, ({ identity, params }) => showClaim(identity, params.id));
