import { clientIp, publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { addInsuredRoom } from '../../../lib/insured/service';

export const handler = publicEndpoint(insuredRoutes.addRoom, ({ params, body, event }) =>
  addInsuredRoom(params.token, body, { ip: clientIp(event) }),
);
