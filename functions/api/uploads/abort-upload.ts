import { httpEndpoint } from '../../../lib/api/endpoint';
import { uploadRoutes } from '../../../lib/uploads/routes';
import { abortUpload } from '../../../lib/uploads/service';

export const handler = httpEndpoint(uploadRoutes.abort, ({ identity, params }) => abortUpload(identity, params.id));
