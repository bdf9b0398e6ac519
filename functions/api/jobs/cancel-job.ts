import { httpEndpoint } from '../../../lib/api/endpoint';
import { jobRoutes } from '../../../lib/jobs/routes';
import { cancelJobFor } from '../../../lib/jobs/service';

export const handler = httpEndpoint(jobRoutes.cancel, ({ identity, params }) => cancelJobFor(identity, params.id));
