import { estimationHandoff } from '../../../lib/auth/estimation-handoff';
import { authRoutes } from '../../../lib/auth/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(authRoutes.estimationHandoff, ({ identity }) => estimationHandoff(identity));
