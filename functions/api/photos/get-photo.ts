import { publicEndpoint } from '../../../lib/api/public-endpoint';
import { photoRoutes } from '../../../lib/photos/routes';
import { redirectToPhoto } from '../../../lib/photos/photo-service';

export const handler = publicEndpoint(photoRoutes.get, ({ params }) => redirectToPhoto(params.job_id, params.filename));
