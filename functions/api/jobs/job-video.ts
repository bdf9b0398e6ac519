import { httpEndpoint } from '../../../lib/api/endpoint';
import { mediaRedirect } from '../../../lib/jobs/media';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = httpEndpoint(jobRoutes.video, ({ params }) => mediaRedirect(params.id, 'video'));
