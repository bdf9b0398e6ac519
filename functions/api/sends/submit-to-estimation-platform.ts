import { httpEndpoint } from '../../../lib/api/endpoint';
import { estimationRoutes } from '../../../lib/sends/estimation-routes';
import { submitToEstimationPlatform } from '../../../lib/sends/estimation-service';

export const handler = httpEndpoint(estimationRoutes.submit, ({ identity, params, body, lambdaContext }) =>
  submitToEstimationPlatform(identity, params.id, body, { timeLeftMs: lambdaContext.getRemainingTimeInMillis() }),
);
