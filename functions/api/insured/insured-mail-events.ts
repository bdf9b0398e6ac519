import { httpEndpoint } from '../../../lib/api/endpoint';
import { insuredRoutes } from '../../../lib/insured/routes';
import { recordMailEvent } from '../../../lib/insured/service';

export const handler = httpEndpoint(insuredRoutes.mailEvents, ({ body }) => recordMailEvent(body));
