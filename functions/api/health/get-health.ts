import { settings } from '../../../lib/config';
import { healthRoutes } from '../../../lib/health/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(healthRoutes.health, async () => ({
  status: 'ok' as const,
  model: settings().OPENROUTER_MODEL,
}));
