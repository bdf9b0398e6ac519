import { httpEndpoint } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/imports/capture/routes';
import { listConnections } from '../../../lib/imports/capture/service';

export const handler = httpEndpoint(captureRoutes.connections, ({ identity }) => listConnections(identity));
