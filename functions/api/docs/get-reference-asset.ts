import { headerValue, publicEndpoint } from '../../../lib/api/public-endpoint';
import { referenceAsset } from '../../../lib/http/api-reference-assets';
import { docsRoutes } from '../../../lib/http/docs-routes';

export const handler = publicEndpoint(docsRoutes.referenceAsset, async ({ params, event }) =>
  referenceAsset(params.name, {
    acceptEncoding: headerValue(event, 'accept-encoding'),
    ifNoneMatch: headerValue(event, 'if-none-match'),
  }),
);
