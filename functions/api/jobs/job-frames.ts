import { httpEndpoint } from '../../../lib/api/endpoint';
import { listJobFrames } from '../../../lib/job-actions/media-service';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = httpEndpoint(jobRoutes.frames, ({ identity, params }) => listJobFrames(identity, params.id));
