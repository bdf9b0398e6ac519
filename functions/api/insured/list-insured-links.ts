import { httpEndpoint } from '../../../lib/api/endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { listInsuredLinks } from '../../../lib/insured/service';

export const handler = httpEndpoint(insuredRoutes.list, ({ identity, params }) =>
  listInsuredLinks(identity, params.claim_id),
);
