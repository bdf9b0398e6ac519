import { httpEndpoint } from '../../../lib/api/endpoint';
import { itemPhotoRoutes } from '../../../lib/inventory/photos/item-photo-routes';
import { moveItemPhoto } from '../../../lib/inventory/photos/item-photo-service';

export const handler = httpEndpoint(itemPhotoRoutes.movePhoto, ({ identity, params, body }) =>
  moveItemPhoto(identity, params.item_id, params.photo_id, body.target_item_id),
);
