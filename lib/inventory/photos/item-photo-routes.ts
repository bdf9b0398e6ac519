import { defineRoute } from '../../http/route';
import {
  itemParams,
  itemPhotoMoveBody,
  itemPhotoMoveResponse,
  itemPhotoParams,
  itemPhotoUpdateBody,
  itemPhotoUploadBody,
  itemPhotoUploadResponse,
} from './item-photo-schemas';
import { itemResponse } from '../schemas';

const TWO_STEP_UPLOAD =
  'Two calls: {filename, size} answers an upload_key and a presigned POST (the bytes go straight to storage; a non-image extension is 422, over 100 MB 413); ' +
  "then {upload_key} checks the upload (400 when it is missing or was issued for another item or route; 422 when its header is not an image's, nothing attached), attaches it and answers the item; the upright-JPEG re-encode follows in the background, and the photo URL serves the upload meanwhile. Confirming twice attaches once.";

/** Photo operations on an item. Frozen items (sent to the estimation platform) answer 409 on every one. */
export const itemPhotoRoutes = {
  replacePhoto: defineRoute({
    name: 'replaceItemPhoto',
    method: 'PUT',
    path: '/api/inventory/item/{item_id}/photo',
    auth: 'actor',
    tag: 'inventory',
    summary: `Replace the primary photo with an uploaded one (restorable). ${TWO_STEP_UPLOAD}`,
    handler: 'api/inventory/replace-item-photo',
    params: itemParams,
    body: itemPhotoUploadBody,
    response: itemPhotoUploadResponse,
    errors: [400, 404, 409, 413],
  }),
  attachPhoto: defineRoute({
    name: 'attachItemPhoto',
    method: 'POST',
    path: '/api/inventory/item/{item_id}/photos',
    auth: 'actor',
    tag: 'inventory',
    summary: `Attach an uploaded photo at the end of the item's photos; it becomes primary only if the item had none (restorable). ${TWO_STEP_UPLOAD}`,
    handler: 'api/inventory/attach-item-photo',
    params: itemParams,
    body: itemPhotoUploadBody,
    response: itemPhotoUploadResponse,
    errors: [400, 404, 409, 413],
  }),
  deletePhoto: defineRoute({
    name: 'deleteItemPhoto',
    method: 'DELETE',
    path: '/api/inventory/item/{item_id}/photos/{photo_id}',
    auth: 'actor',
    tag: 'inventory',
    summary:
      "Remove a photo from the item (its file stays, so undo can bring it back); if it was primary the next one becomes primary and photo_path follows (null when none is left). Restorable. 404 for another item's photo.",
    handler: 'api/inventory/delete-item-photo',
    params: itemPhotoParams,
    response: itemResponse,
    errors: [404, 409],
  }),
  updatePhoto: defineRoute({
    name: 'updateItemPhoto',
    method: 'PUT',
    path: '/api/inventory/item/{item_id}/photos/{photo_id}',
    auth: 'actor',
    tag: 'inventory',
    summary:
      "Set the primary photo (is_primary=true demotes all others and copies the photo's path onto photo_path) and/or move it to position `ordering` (the others are renumbered 0..n-1). Restorable.",
    handler: 'api/inventory/update-item-photo',
    params: itemPhotoParams,
    body: itemPhotoUpdateBody,
    response: itemResponse,
    errors: [404, 409],
  }),
  movePhoto: defineRoute({
    name: 'moveItemPhoto',
    method: 'PUT',
    path: '/api/inventory/item/{item_id}/photos/{photo_id}/move',
    auth: 'actor',
    tag: 'inventory',
    summary:
      "Move a photo to another item of the same team: appended at its end (its primary only if it had none); the source promotes its next photo if this one was primary. 400 for the same item, 404 for another team's item, 409 when either item is frozen. Restorable.",
    handler: 'api/inventory/move-item-photo',
    params: itemPhotoParams,
    body: itemPhotoMoveBody,
    response: itemPhotoMoveResponse,
    errors: [400, 404, 409],
  }),
};
