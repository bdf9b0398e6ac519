import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryLifecycleRoutes } from '../../../lib/inventory/editing/lifecycle-routes';
import { mergeItems } from '../../../lib/inventory/editing/merge-service';

export const handler = httpEndpoint(inventoryLifecycleRoutes.merge, ({ identity, body }) => mergeItems(identity, body));
