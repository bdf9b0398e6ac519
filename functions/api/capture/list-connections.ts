import { httpEndpoint } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/capture/routes';
import { listConnections } from '../../../lib/capture/service';

export const handler = httpEndpoint(captureRoutes.connections, ({ identity }) => listConnections(identity));
