import { httpEndpoint } from '../../../lib/api/endpoint';
import { quoteEstimationSend } from '../../../lib/sends/estimation-read-service';
import { estimationRoutes } from '../../../lib/sends/estimation-routes';

export const handler = httpEndpoint(estimationRoutes.quote, ({ identity, params }) =>
  quoteEstimationSend(identity, params.id),
);
