import { activityRoutes } from '../../../lib/activity/routes';
import { listActivity } from '../../../lib/activity/service';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(activityRoutes.list, ({ identity, query }) => listActivity(identity, query));
