import { claimRoutes } from '../../../lib/claims/routes';
import { createClaim } from '../../../lib/claims/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.create, ({ identity, body }) => createClaim(identity, body));
