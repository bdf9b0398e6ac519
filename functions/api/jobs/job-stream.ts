import { httpEndpoint } from '../../../lib/api/endpoint';
import { streamRedirect } from '../../../lib/jobs/media';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = httpEndpoint(jobRoutes.stream, ({ params }) => streamRedirect(params.id));
