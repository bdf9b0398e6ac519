import { httpEndpoint } from '../../../lib/api/endpoint';
import { estimationRoutes } from '../../../lib/sends/estimation-routes';
import { submitToEstimationPlatform } from '../../../lib/sends/estimation-service';

export const handler = httpEndpoint(estimationRoutes.submit, ({ identity, params, body, event }) =>
  // When the gateway received the request: a send that ended after it overlapped this one (a double click).
  submitToEstimationPlatform(identity, params.id, body, { receivedAt: new Date(event.requestContext.timeEpoch) }),
);
