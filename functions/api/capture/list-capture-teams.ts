import { httpEndpoint } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/imports/capture/routes';
import { listCaptureTeams } from '../../../lib/imports/capture/service';

export const handler = httpEndpoint(captureRoutes.teams, ({ identity, params, query }) =>
  listCaptureTeams(identity, params.id, query.cursor),
);
