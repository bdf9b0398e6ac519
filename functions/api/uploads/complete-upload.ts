import { httpEndpoint } from '../../../lib/api/endpoint';
import { uploadRoutes } from '../../../lib/uploads/routes';
import { completeUpload } from '../../../lib/uploads/service';

export const handler = httpEndpoint(uploadRoutes.complete, ({ identity, params }) =>
  completeUpload(identity, params.id),
);
