import { authRoutes } from '../../../lib/auth/routes';
import { getAuthConfig } from '../../../lib/session/service';
import { publicEndpoint } from '../../../lib/api/public-endpoint';

export const handler = publicEndpoint(authRoutes.config, async () => getAuthConfig());
