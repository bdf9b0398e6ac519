import { claimRoutes } from '../../../lib/claims/routes';
import { archiveClaim } from '../../../lib/claims/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(claimRoutes.archive, ({ identity, params }) => archiveClaim(identity, params.id));
