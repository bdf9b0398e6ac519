import { httpEndpoint } from '../../../lib/api/endpoint';
import { listFramesFor } from '../../../lib/jobs/media';
import { jobRoutes } from '../../../lib/jobs/routes';

export const handler = httpEndpoint(jobRoutes.frames, ({ identity, params }) => listFramesFor(identity, params.id));
