import { publicEndpoint } from '../../../lib/api/public-endpoint';
import { redirectToFrame } from '../../../lib/job-actions/media-service';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = publicEndpoint(jobRoutes.frame, ({ params }) => redirectToFrame(params.id, params.name));
