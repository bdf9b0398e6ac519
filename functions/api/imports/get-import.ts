import { httpEndpoint } from '../../../lib/api/endpoint';
import { importRoutes } from '../../../lib/imports/routes';
import { showImportBatch } from '../../../lib/imports/service';

export const handler = httpEndpoint(importRoutes.get, ({ identity, params }) =>
  showImportBatch(identity, params.batch_id),
);
