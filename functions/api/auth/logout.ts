import { authRoutes } from '../../../lib/auth/routes';
import { logout } from '../../../lib/auth/session';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(authRoutes.logout, ({ identity }) => logout(identity));
