import * as z from 'zod';
import { defineRoute } from '../http/route';
import { queryBool, uuid } from '../http/schemas';
import { itemResponse } from './schemas';

export const inventoryRoutes = {
  list: defineRoute({
    name: 'listInventory',
    method: 'GET',
    path: '/api/inventory/{job_id}',
    auth: 'user',
    tag: 'inventory',
    summary:
      "A job's items with their photos, ordered by item number. Archived items are left out unless archived=true.",
    handler: 'api/inventory/list-inventory',
    params: z.object({ job_id: uuid() }),
    query: z.object({ archived: queryBool(false) }),
    response: z.array(itemResponse),
    errors: [404],
  }),
};
