import { httpEndpoint } from '../../../lib/api/endpoint';
import { captureRoutes } from '../../../lib/capture/routes';
import { listCaptureTeams } from '../../../lib/capture/service';

export const handler = httpEndpoint(captureRoutes.teams, ({ identity, params, query }) =>
  listCaptureTeams(identity, params.id, query.cursor),
);
