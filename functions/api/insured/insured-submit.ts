import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { submitInsuredDraft } from '../../../lib/insured/submit-service';

export const handler = publicEndpoint(insuredDraftRoutes.submit, ({ params, event }) =>
  submitInsuredDraft(params.token, { ip: clientIp(event) }),
);
