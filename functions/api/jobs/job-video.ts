import { httpEndpoint } from '../../../lib/api/endpoint';
import { redirectToJobMedia } from '../../../lib/jobs/media-service';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = httpEndpoint(jobRoutes.video, ({ params }) => redirectToJobMedia(params.id, 'video'));
