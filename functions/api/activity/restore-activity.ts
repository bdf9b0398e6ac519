import { restoreActivity } from '../../../lib/activity/restore-service';
import { activityRoutes } from '../../../lib/activity/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';
import { undoRestorers } from '../../../lib/api/undo-restorers';

export const handler = httpEndpoint(activityRoutes.restore, ({ identity, params }) =>
  restoreActivity(identity, params.log_id, undoRestorers),
);
