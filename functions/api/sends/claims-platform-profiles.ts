import { httpEndpoint } from '../../../lib/api/endpoint';
import { claimsPlatformRoutes } from '../../../lib/sends/claims-platform-routes';
import { listClaimsPlatformProfiles } from '../../../lib/sends/claims-platform-service';

export const handler = httpEndpoint(claimsPlatformRoutes.profiles, ({ identity, params }) =>
  listClaimsPlatformProfiles(identity, params.id),
);
