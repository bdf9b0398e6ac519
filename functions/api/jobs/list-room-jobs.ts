import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { listJobsInRoom } from '../../../lib/job-actions/service';

export const handler = httpEndpoint(jobRoutes.roomJobs, ({ identity, params }) =>
  listJobsInRoom(identity, params.room_id),
);
