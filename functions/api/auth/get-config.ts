import { authRoutes } from '../../../lib/auth/routes';
import { authConfig } from '../../../lib/auth/session';
import { httpEndpoint } from '../../../lib/http/endpoint';

export const handler = httpEndpoint(authRoutes.config, async () => authConfig());
