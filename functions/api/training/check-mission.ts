import { httpEndpoint } from '../../../lib/api/endpoint';
import { trainingRoutes } from '../../../lib/training/routes';
import { checkMission } from '../../../lib/training/service';

export const handler = httpEndpoint(trainingRoutes.check, ({ identity, params }) => checkMission(identity, params.key));
