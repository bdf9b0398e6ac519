import { authRoutes } from '../../../lib/auth/routes';
import { getAuthDebug } from '../../../lib/session/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(authRoutes.debug, async ({ identity }) => getAuthDebug(identity));
