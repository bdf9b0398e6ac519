import { claimRoutes } from '../../../lib/claims/routes';
import { listClaimsFor } from '../../../lib/claims/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.list, ({ identity, query }) => listClaimsFor(identity, query.archived));
