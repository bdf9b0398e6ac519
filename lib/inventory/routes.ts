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
  // A room's inventory: tagged with the rooms, and answered in the shape of a job's.
  listRoom: defineRoute({
    name: 'listRoomInventory',
    method: 'GET',
    path: '/api/rooms/{room_id}/inventory',
    auth: 'user',
    tag: 'rooms',
    summary:
      "Every item of the room across its jobs, with photos, ordered by item number (the shape of a job's inventory). Archived items are left out unless archived=true.",
    handler: 'api/rooms/list-room-inventory',
    params: z.object({ room_id: uuid() }),
    query: z.object({ archived: queryBool(false) }),
    response: z.array(itemResponse),
    errors: [404],
  }),
};
