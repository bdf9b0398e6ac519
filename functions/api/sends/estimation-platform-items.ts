import { httpEndpoint } from '../../../lib/api/endpoint';
import { listEstimationItems } from '../../../lib/sends/estimation-read-service';
import { estimationRoutes } from '../../../lib/sends/estimation-routes';

export const handler = httpEndpoint(estimationRoutes.items, ({ identity, params }) =>
  listEstimationItems(identity, params.id),
);
