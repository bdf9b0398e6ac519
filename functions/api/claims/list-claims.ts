import { claimRoutes } from '../../../lib/claims/routes';
import { listClaims } from '../../../lib/claims/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.list, ({ identity, query }) => listClaims(identity, query.archived));
