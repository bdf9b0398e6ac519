import { httpEndpoint } from '../../../lib/api/endpoint';
import { uploadRoutes } from '../../../lib/uploads/routes';
import { getUploadStatus } from '../../../lib/uploads/service';

export const handler = httpEndpoint(uploadRoutes.status, ({ identity, params }) =>
  getUploadStatus(identity, params.id),
);
