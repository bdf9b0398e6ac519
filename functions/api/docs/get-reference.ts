import { publicEndpoint } from '../../../lib/api/public-endpoint';
import { referencePage } from '../../../lib/http/api-reference';
import { docsRoutes } from '../../../lib/http/docs-routes';

export const handler = publicEndpoint(docsRoutes.reference, async () => referencePage());
