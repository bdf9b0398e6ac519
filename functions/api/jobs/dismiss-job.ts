import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { dismissJobById } from '../../../lib/orchestrator/recovery';

export const handler = httpEndpoint(jobRoutes.dismiss, ({ params }) => dismissJobById(params.id));
