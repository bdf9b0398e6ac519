import { pipelineHealth } from '../../../lib/health/pipeline';
import { healthRoutes } from '../../../lib/health/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(healthRoutes.pipeline, () => pipelineHealth());
