import { publicEndpoint } from '../../../lib/api/public-endpoint';
import { redirectToJobMedia } from '../../../lib/job-actions/media-service';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = publicEndpoint(jobRoutes.video, ({ params }) => redirectToJobMedia(params.id, 'video'));
