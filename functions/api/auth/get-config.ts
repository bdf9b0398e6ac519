import { authRoutes } from '../../../lib/auth/routes';
import { getAuthConfig } from '../../../lib/auth/session-service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(authRoutes.config, async () => getAuthConfig());
