import { httpEndpoint } from '../../../lib/api/endpoint';
import { inventoryRoutes } from '../../../lib/inventory/routes';
import { listInventory } from '../../../lib/inventory/service';

export const handler = httpEndpoint(inventoryRoutes.list, ({ identity, params, query }) =>
  listInventory(identity, params.job_id, { archived: query.archived }),
);
