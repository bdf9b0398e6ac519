import { getPipelineHealth } from '../../../lib/health/service';
import { healthRoutes } from '../../../lib/health/routes';
import { publicEndpoint } from '../../../lib/api/public-endpoint';

export const handler = publicEndpoint(healthRoutes.pipeline, () => getPipelineHealth());
