import { authRoutes } from '../../../lib/auth/routes';
import { logOut } from '../../../lib/session/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(authRoutes.logout, ({ identity }) => logOut(identity));
