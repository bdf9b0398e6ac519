import { httpEndpoint } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/imports/capture/routes';
import { deleteTeamConnection } from '../../../lib/imports/capture/service';

export const handler = httpEndpoint(captureRoutes.disconnect, ({ identity, params }) =>
  deleteTeamConnection(identity, params.id),
);
