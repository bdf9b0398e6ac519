import { httpEndpoint } from '../../../lib/http/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import '../../../lib/pipelines'; // a dismissed pass ends by its pipeline's rules
import { dismissJobById } from '../../../lib/orchestrator/recovery';

export const handler = httpEndpoint(jobRoutes.dismiss, ({ params }) => dismissJobById(params.id));
