import { authRoutes } from '../../../lib/auth/routes';
import { authConfig } from '../../../lib/auth/session';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(authRoutes.config, async () => authConfig());
