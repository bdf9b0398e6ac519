import { httpEndpoint } from '../../../lib/api/endpoint';
import { photoRoutes } from '../../../lib/photos/routes';
import { photoRedirect } from '../../../lib/photos/serve';

export const handler = httpEndpoint(photoRoutes.get, ({ params }) => photoRedirect(params.job_id, params.filename));
