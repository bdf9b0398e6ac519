import * as z from 'zod';
import { defineRoute } from '../../http/route';
import { uuid } from '../../http/schemas';
import { approveBody, autoApproveResponse, bulkBody, bulkResponse, itemPatchBody } from './edit-schemas';
import { itemResponse } from '../schemas';

const itemParams = z.object({ item_id: uuid() });
const jobParams = z.object({ job_id: uuid() });

export const inventoryEditRoutes = {
  update: defineRoute({
    name: 'updateInventoryItem',
    method: 'PUT',
    path: '/api/inventory/item/{item_id}',
    auth: 'actor',
    tag: 'inventory',
    summary:
      'Edit item fields (at least one; title is another name for name) and mark the item reviewed (restorable). ' +
      '409 once the item was sent to the estimation platform.',
    handler: 'api/inventory/update-inventory-item',
    params: itemParams,
    body: itemPatchBody,
    response: itemResponse,
    errors: [404, 409],
  }),
  archive: defineRoute({
    name: 'archiveInventoryItem',
    method: 'POST',
    path: '/api/inventory/item/{item_id}/archive',
    auth: 'actor',
    tag: 'inventory',
    summary:
      'Archive an item: left out of default lists, counts, exports and sends (restorable). ' +
      '400 for an item submitted to the claims platform; 409 once sent to the estimation platform.',
    handler: 'api/inventory/archive-inventory-item',
    params: itemParams,
    response: itemResponse,
    errors: [400, 404, 409],
  }),
  unarchive: defineRoute({
    name: 'unarchiveInventoryItem',
    method: 'POST',
    path: '/api/inventory/item/{item_id}/unarchive',
    auth: 'actor',
    tag: 'inventory',
    summary: 'Bring an archived item back (restorable). 409 once sent to the estimation platform.',
    handler: 'api/inventory/unarchive-inventory-item',
    params: itemParams,
    response: itemResponse,
    errors: [404, 409],
  }),
  approve: defineRoute({
    name: 'approveInventoryItem',
    method: 'POST',
    path: '/api/inventory/{job_id}/approve',
    auth: 'actor',
    tag: 'inventory',
    summary:
      "Approve or unapprove one of the job's items, and/or flag it for review or clear the flag (restorable). " +
      'Allowed on items sent to the estimation platform. An item of another job is 404.',
    handler: 'api/inventory/approve-inventory-item',
    params: jobParams,
    body: approveBody,
    response: itemResponse,
    errors: [404, 409],
  }),
  autoApprove: defineRoute({
    name: 'autoApproveInventory',
    method: 'POST',
    path: '/api/inventory/{job_id}/auto-approve',
    auth: 'actor',
    tag: 'inventory',
    summary:
      "Apply the team's saved auto-approval rules to the job's unapproved, unarchived items (restorable; " +
      'at most 2500 items per call). Nothing is approved while auto-approval is off.',
    handler: 'api/inventory/auto-approve-inventory',
    params: jobParams,
    response: autoApproveResponse,
    errors: [404],
  }),
  bulk: defineRoute({
    name: 'bulkUpdateInventory',
    method: 'POST',
    path: '/api/inventory/{job_id}/bulk',
    auth: 'actor',
    tag: 'inventory',
    summary:
      "One field patch to many items of the job's claim, marking them reviewed (restorable). Items submitted to " +
      'the claims platform are skipped and listed. A batch naming any item sent to the estimation platform is ' +
      'refused whole (409); items of another claim are 400.',
    handler: 'api/inventory/bulk-update-inventory',
    params: jobParams,
    body: bulkBody,
    response: bulkResponse,
    errors: [400, 404, 409],
  }),
};
