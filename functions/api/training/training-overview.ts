import { httpEndpoint } from '../../../lib/api/endpoint';
import { trainingRoutes } from '../../../lib/training/routes';
import { showTrainingOverview } from '../../../lib/training/service';

export const handler = httpEndpoint(trainingRoutes.overview, ({ identity }) => showTrainingOverview(identity));
