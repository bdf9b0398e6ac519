import { httpEndpoint } from '../../../lib/api/endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { addInsuredRoom } from '../../../lib/insured/service';

export const handler = httpEndpoint(insuredRoutes.addRoom, ({ params, body }) => addInsuredRoom(params.token, body));
