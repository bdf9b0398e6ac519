import { httpEndpoint } from '../../../lib/api/endpoint';
import { redirectToJobMedia } from '../../../lib/jobs/media-service';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = httpEndpoint(jobRoutes.audio, ({ params }) => redirectToJobMedia(params.id, 'audio'));
