import { httpEndpoint } from '../../../lib/api/endpoint';
import { trainingRoutes } from '../../../lib/training/routes';
import { showLeaderboard } from '../../../lib/training/service';

export const handler = httpEndpoint(trainingRoutes.leaderboard, ({ identity }) => showLeaderboard(identity));
