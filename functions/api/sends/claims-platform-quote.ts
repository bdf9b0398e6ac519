import { httpEndpoint } from '../../../lib/api/endpoint';
import { claimsPlatformRoutes } from '../../../lib/sends/claims-platform-routes';
import { quoteClaimsPlatformSend } from '../../../lib/sends/claims-platform-service';

export const handler = httpEndpoint(claimsPlatformRoutes.quote, ({ identity, params, body }) =>
  quoteClaimsPlatformSend(identity, params.id, body),
);
