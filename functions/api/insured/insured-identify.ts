import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { setInsuredName } from '../../../lib/insured/service';

export const handler = publicEndpoint(insuredRoutes.identify, ({ params, body, event }) =>
  setInsuredName(params.token, body, { ip: clientIp(event) }),
);
