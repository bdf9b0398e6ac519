import { authRoutes } from '../../../lib/auth/routes';
import { authDebug } from '../../../lib/auth/session';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(authRoutes.debug, async ({ identity }) => authDebug(identity));
