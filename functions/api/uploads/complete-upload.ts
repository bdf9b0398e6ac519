import { httpEndpoint } from '../../../lib/http/endpoint';
import { uploadRoutes } from '../../../lib/uploads/routes';
import { completeUploadFor } from '../../../lib/uploads/service';

export const handler = httpEndpoint(uploadRoutes.complete, ({ identity, params }) => completeUploadFor(identity, params.id));
