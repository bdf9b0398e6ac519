import { httpEndpoint } from '../../../lib/api/endpoint';
import { redirectToFrame } from '../../../lib/jobs/media-service';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = httpEndpoint(jobRoutes.frame, ({ params }) => redirectToFrame(params.id, params.name));
