import { httpEndpoint } from '../../../lib/api/endpoint';
import { photoRoutes } from '../../../lib/photos/routes';
import { redirectToPhoto } from '../../../lib/photos/photo-service';

export const handler = httpEndpoint(photoRoutes.get, ({ params }) => redirectToPhoto(params.job_id, params.filename));
