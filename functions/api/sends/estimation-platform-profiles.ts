import { httpEndpoint } from '../../../lib/api/endpoint';
import { listEstimationProfiles } from '../../../lib/sends/estimation-read-service';
import { estimationRoutes } from '../../../lib/sends/estimation-routes';

export const handler = httpEndpoint(estimationRoutes.profiles, ({ identity, params }) =>
  listEstimationProfiles(identity, params.id),
);
