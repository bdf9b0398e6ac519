import { clientIp, httpEndpoint } from '../../../lib/api/endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { addInsuredRoom } from '../../../lib/insured/service';

export const handler = httpEndpoint(insuredRoutes.addRoom, ({ params, body, event }) =>
  addInsuredRoom(params.token, body, { ip: clientIp(event) }),
);
