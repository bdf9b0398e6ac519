import { createEstimationHandoff } from '../../../lib/auth/handoff-service';
import { authRoutes } from '../../../lib/auth/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(authRoutes.estimationHandoff, ({ identity }) => createEstimationHandoff(identity));
