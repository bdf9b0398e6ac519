import { claimRoutes } from '../../../lib/claims/routes';
import { getClaimFor } from '../../../lib/claims/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.get, ({ identity, params }) => getClaimFor(identity, params.id));
