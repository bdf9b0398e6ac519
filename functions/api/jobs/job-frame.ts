import { httpEndpoint } from '../../../lib/api/endpoint';
import { frameRedirect } from '../../../lib/jobs/media';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = httpEndpoint(jobRoutes.frame, ({ params }) => frameRedirect(params.id, params.name));
