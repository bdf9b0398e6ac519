import { listTeamActivity } from '../../../lib/activity/log';
import { activityRoutes } from '../../../lib/activity/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(activityRoutes.list, ({ identity, query }) =>
  listTeamActivity(identity.team.id, query),
);
