import { httpEndpoint } from '../../../lib/api/endpoint';
import { redirectToStream } from '../../../lib/jobs/media-service';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = httpEndpoint(jobRoutes.stream, ({ params }) => redirectToStream(params.id));
