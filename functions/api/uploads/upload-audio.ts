import { httpEndpoint } from '../../../lib/api/endpoint';
import { uploadRoutes } from '../../../lib/uploads/routes';
import { initUpload } from '../../../lib/uploads/service';

export const handler = httpEndpoint(uploadRoutes.audio, ({ identity, body }) =>
  initUpload(identity, { ...body, kind: 'audio' }),
);
