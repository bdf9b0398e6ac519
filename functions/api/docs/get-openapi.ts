import { httpEndpoint } from '../../../lib/api/endpoint';
import { docsRoutes, serviceApi } from '../../../lib/http/docs-routes';
import { openApiDocument } from '../../../lib/http/openapi';
import { routeTable } from '../../../lib/api/route-table';

let document: ReturnType<typeof openApiDocument> | undefined;

export const handler = httpEndpoint(docsRoutes.openapi, async () => {
  document ??= openApiDocument(routeTable, serviceApi);
  return document;
});
