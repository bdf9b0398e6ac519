import { httpEndpoint } from '../../../lib/api/endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { createInsuredLink } from '../../../lib/insured/service';

export const handler = httpEndpoint(insuredRoutes.invite, ({ identity, params, body }) =>
  createInsuredLink(identity, params.claim_id, body),
);
