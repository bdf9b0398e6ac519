import { httpEndpoint } from '../../../lib/api/endpoint';
import { uploadRoutes } from '../../../lib/uploads/routes';
import { initUploadFor } from '../../../lib/uploads/service';

export const handler = httpEndpoint(uploadRoutes.init, ({ identity, body }) => initUploadFor(identity, body));
