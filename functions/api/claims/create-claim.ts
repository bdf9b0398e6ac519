import { claimRoutes } from '../../../lib/claims/routes';
import { createClaimFor } from '../../../lib/claims/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.create, ({ identity, body }) => createClaimFor(identity, body));
