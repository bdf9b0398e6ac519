import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { listRoomJobsFor } from '../../../lib/jobs/service';

export const handler = httpEndpoint(jobRoutes.roomJobs, ({ identity, params }) =>
  listRoomJobsFor(identity, params.room_id),
);
