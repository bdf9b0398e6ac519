import { httpEndpoint } from '../../../lib/http/endpoint';
import { frameRedirect } from '../../../lib/jobs/media';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = httpEndpoint(jobRoutes.frame, ({ params }) => frameRedirect(params.id, params.name));
