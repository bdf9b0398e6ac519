import { authRoutes } from '../../../lib/auth/routes';
import { getMe } from '../../../lib/session/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(authRoutes.me, ({ identity }) => getMe(identity));
