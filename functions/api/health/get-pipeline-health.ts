import { getPipelineHealth } from '../../../lib/health/service';
import { healthRoutes } from '../../../lib/health/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(healthRoutes.pipeline, () => getPipelineHealth());
