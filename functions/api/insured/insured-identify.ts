import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { setInsuredName } from '../../../lib/insured/service';

export const handler = httpEndpoint(insuredRoutes.identify, ({ params, body, event }) =>
  setInsuredName(params.token, body, { ip: clientIp(event) }),
);
