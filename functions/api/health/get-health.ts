import { settings } from '../../../lib/config';
import { healthRoutes } from '../../../lib/health/routes';
import { publicEndpoint } from '../../../lib/api/public-endpoint';

export const handler = publicEndpoint(healthRoutes.health, async () => ({
  status: 'ok' as const,
  model: settings().OPENROUTER_MODEL,
}));
