import { listJobLogs } from '../../../lib/admin/job-list-service';
import { adminRoutes } from '../../../lib/admin/routes';
import { httpEndpoint } from '../../../lib/api/endpoint';

export const handler = httpEndpoint(adminRoutes.logs, ({ query }) => listJobLogs(query));
