import { httpEndpoint } from '../../../lib/api/endpoint';
import { itemPhotoRoutes } from '../../../lib/inventory/photos/item-photo-routes';
import { updateItemPhoto } from '../../../lib/inventory/photos/item-photo-service';

export const handler = httpEndpoint(itemPhotoRoutes.updatePhoto, ({ identity, params, body }) =>
  updateItemPhoto(identity, params.item_id, params.photo_id, body),
);
