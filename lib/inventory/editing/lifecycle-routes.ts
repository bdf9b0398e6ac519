import * as z from 'zod';
import { defineRoute } from '../../http/route';
import { uuid } from '../../http/schemas';
import { itemAddBody, itemDeletedResponse, itemMergeBody } from './lifecycle-schemas';
import { itemResponse } from '../schemas';

export const inventoryLifecycleRoutes = {
  add: defineRoute({
    name: 'addInventoryItem',
    method: 'POST',
    path: '/api/inventory/{job_id}/item',
    auth: 'actor',
    tag: 'inventory',
    summary:
      "Add an item by hand (restorable: undo deletes it). It takes the claim's next number, or with " +
      'insert_after_item_number the number right after that one, and every later item of the claim moves up by one; ' +
      'numbers stay unique and without gaps also while a pipeline saves items to the same claim. 400 when the claim ' +
      'has no item with that number. Honours Idempotency-Key.',
    handler: 'api/inventory/add-item',
    params: z.object({ job_id: uuid() }),
    body: itemAddBody,
    response: itemResponse,
    // A retried add (lost answer, double click) must not make a second item.
    idempotent: true,
    successStatus: 201,
    errors: [400, 404],
  }),
  delete: defineRoute({
    name: 'deleteInventoryItem',
    method: 'DELETE',
    path: '/api/inventory/item/{item_id}',
    auth: 'actor',
    tag: 'inventory',
    summary:
      'Delete an item and its photo rows (restorable: undo brings it back with the same id, number and photos; the ' +
      'photo files stay until the purge). 409 when the item has been sent to the estimation platform.',
    handler: 'api/inventory/delete-item',
    params: z.object({ item_id: uuid() }),
    response: itemDeletedResponse,
    errors: [404, 409],
  }),
  merge: defineRoute({
    name: 'mergeInventoryItems',
    method: 'POST',
    path: '/api/inventory/items/merge',
    auth: 'actor',
    tag: 'inventory',
    summary:
      "Merge items of one claim into one (restorable as one action): the others' photos are appended to the kept " +
      "item's, which keeps its quantity and primary photo, and the others are deleted. 400 for fewer than two items " +
      'or items of two claims, 409 when one has been sent to the estimation platform.',
    handler: 'api/inventory/merge-items',
    body: itemMergeBody,
    response: itemResponse,
    errors: [400, 404, 409],
  }),
};
