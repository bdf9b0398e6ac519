import { httpEndpoint } from '../../../lib/api/endpoint';
import { listEstimationClaims } from '../../../lib/sends/estimation-read-service';
import { estimationRoutes } from '../../../lib/sends/estimation-routes';

export const handler = httpEndpoint(estimationRoutes.claims, ({ identity, params, query }) =>
  listEstimationClaims(identity, params.id, query),
);
