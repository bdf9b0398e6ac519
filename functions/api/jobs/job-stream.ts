import { publicEndpoint } from '../../../lib/api/public-endpoint';
import { redirectToStream } from '../../../lib/job-actions/media-service';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = publicEndpoint(jobRoutes.stream, ({ params }) => redirectToStream(params.id));
