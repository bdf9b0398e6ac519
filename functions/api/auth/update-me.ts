import { authRoutes } from '../../../lib/auth/routes';
import { updateMe } from '../../../lib/session/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(authRoutes.updateMe, ({ identity, body }) => updateMe(identity, body.timezone));
