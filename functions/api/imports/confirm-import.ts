import { httpEndpoint } from '../../../lib/api/endpoint';
import { importRoutes } from '../../../lib/imports/routes';
import { confirmContentsListUpload } from '../../../lib/imports/service';

export const handler = httpEndpoint(importRoutes.confirm, ({ identity, params, body }) =>
  confirmContentsListUpload(identity, params.batch_id, body),
);
