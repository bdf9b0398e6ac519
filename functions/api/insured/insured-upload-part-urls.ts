import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { presignInsuredParts } from '../../../lib/insured/upload-service';

export const handler = publicEndpoint(insuredDraftRoutes.uploadPartUrls, ({ params, body, event }) =>
  presignInsuredParts(params.token, params.id, body.parts, { ip: clientIp(event) }),
);
