import { httpEndpoint } from '../../../lib/api/endpoint';
import { trainingRoutes } from '../../../lib/training/routes';
import { showMissionChecks } from '../../../lib/training/service';

export const handler = httpEndpoint(trainingRoutes.checks, ({ identity, params }) =>
  showMissionChecks(identity, params.key),
);
