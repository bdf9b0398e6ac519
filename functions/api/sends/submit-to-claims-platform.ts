import { httpEndpoint } from '../../../lib/api/endpoint';
import { claimsPlatformRoutes } from '../../../lib/sends/claims-platform-routes';
import { submitToClaimsPlatform } from '../../../lib/sends/claims-platform-service';

export const handler = httpEndpoint(claimsPlatformRoutes.submit, ({ identity, params, body, event }) =>
  submitToClaimsPlatform(identity, params.id, body, { receivedAt: new Date(event.requestContext.timeEpoch) }),
);
