import { estimationHandoff } from '../../../lib/auth/estimation-handoff';
import { authRoutes } from '../../../lib/auth/routes';
import { httpEndpoint } from '../../../lib/http/endpoint';

export const handler = httpEndpoint(authRoutes.estimationHandoff, ({ identity }) => estimationHandoff(identity));
