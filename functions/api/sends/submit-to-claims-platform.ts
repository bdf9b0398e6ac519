import { httpEndpoint } from '../../../lib/api/endpoint';
import { claimsPlatformRoutes } from '../../../lib/sends/claims-platform-routes';
import { submitToClaimsPlatform } from '../../../lib/sends/claims-platform-service';

export const handler = httpEndpoint(claimsPlatformRoutes.submit, ({ identity, params, body }) =>
  submitToClaimsPlatform(identity, params.id, body),
);
