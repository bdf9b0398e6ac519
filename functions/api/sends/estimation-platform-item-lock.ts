import { httpEndpoint } from '../../../lib/api/endpoint';
import { setEstimationItemLock } from '../../../lib/sends/estimation-read-service';
import { estimationRoutes } from '../../../lib/sends/estimation-routes';

export const handler = httpEndpoint(estimationRoutes.itemLock, ({ identity, params, body }) =>
  setEstimationItemLock(identity, params.id, body),
);
