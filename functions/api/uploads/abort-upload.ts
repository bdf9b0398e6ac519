import { httpEndpoint } from '../../../lib/api/endpoint';
import { uploadRoutes } from '../../../lib/uploads/routes';
import { abortUploadFor } from '../../../lib/uploads/service';

export const handler = httpEndpoint(uploadRoutes.abort, ({ identity, params }) => abortUploadFor(identity, params.id));
