import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredDraftRoutes } from '../../../lib/insured/draft-routes';
import { submitInsuredDraft } from '../../../lib/insured/submit-service';

export const handler = httpEndpoint(insuredDraftRoutes.submit, ({ params, event }) =>
  submitInsuredDraft(params.token, { ip: clientIp(event) }),
);
