import { httpEndpoint } from '../../../lib/api/endpoint';
import { trainingRoutes } from '../../../lib/training/routes';
import { startTraining } from '../../../lib/training/service';

export const handler = httpEndpoint(trainingRoutes.start, ({ identity }) => startTraining(identity));
