import { httpEndpoint } from '../../../lib/api/endpoint';
import { importRoutes } from '../../../lib/imports/routes';
import { startContentsListImport } from '../../../lib/imports/service';

export const handler = httpEndpoint(importRoutes.importContentsList, ({ identity, params, body }) =>
  startContentsListImport(identity, params.id, body),
);
