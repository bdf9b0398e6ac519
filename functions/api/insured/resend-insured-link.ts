import { httpEndpoint } from '../../../lib/api/endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { resendInsuredLink } from '../../../lib/insured/service';

export const handler = httpEndpoint(insuredRoutes.resend, ({ identity, params }) =>
  resendInsuredLink(identity, params.link_id),
);
