import { publicEndpoint } from '../../../lib/api/public-endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { recordMailEvent } from '../../../lib/insured/service';

export const handler = publicEndpoint(insuredRoutes.mailEvents, ({ body }) => recordMailEvent(body));
