import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { presignInsuredParts } from '../../../lib/insured/upload-service';

export const handler = httpEndpoint(insuredDraftRoutes.uploadPartUrls, ({ params, body, event }) =>
  presignInsuredParts(params.token, params.id, body.parts, { ip: clientIp(event) }),
);
