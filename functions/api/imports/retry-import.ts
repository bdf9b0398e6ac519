import { httpEndpoint } from '../../../lib/api/endpoint';
import { importRoutes } from '../../../lib/imports/routes';
import { retryImportBatch } from '../../../lib/imports/service';

export const handler = httpEndpoint(importRoutes.retry, ({ identity, params }) =>
  retryImportBatch(identity, params.batch_id),
);
