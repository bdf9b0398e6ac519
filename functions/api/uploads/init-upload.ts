import { httpEndpoint } from '../../../lib/http/endpoint';
import { uploadRoutes } from '../../../lib/uploads/routes';
import { initUploadFor } from '../../../lib/uploads/service';

export const handler = httpEndpoint(uploadRoutes.init, ({ identity, body }) => initUploadFor(identity, body));
