import { httpEndpoint } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/capture/routes';
import { deleteTeamConnection } from '../../../lib/capture/service';

export const handler = httpEndpoint(captureRoutes.disconnect, ({ identity, params }) =>
  deleteTeamConnection(identity, params.id),
);
