import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryLifecycleRoutes } from '../../../lib/inventory/lifecycle-routes';
import { mergeItems } from '../../../lib/inventory/merge-service';

export const handler = httpEndpoint(inventoryLifecycleRoutes.merge, ({ identity, body }) => mergeItems(identity, body));
