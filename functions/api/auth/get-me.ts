import { authRoutes } from '../../../lib/auth/routes';
import { me } from '../../../lib/auth/session';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(authRoutes.me, ({ identity }) => me(identity));
