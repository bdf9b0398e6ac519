import { publicEndpoint } from '../../../lib/api/public-endpoint';
import { docsRoutes, serviceApi } from '../../../lib/http/docs-routes';
import { openApiDocument } from '../../../lib/http/openapi';
import { routeTable } from '../../../lib/api/route-table';

let document: ReturnType<typeof openApiDocument> | undefined;

export const handler = publicEndpoint(docsRoutes.openapi, async () => {
  document ??= openApiDocument(routeTable, serviceApi);
  return document;
});
