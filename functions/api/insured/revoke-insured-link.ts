import { httpEndpoint } from '../../../lib/api/endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { revokeInsuredLink } from '../../../lib/insured/service';

export const handler = httpEndpoint(insuredRoutes.revoke, ({ identity, params }) =>
  revokeInsuredLink(identity, params.link_id),
);
