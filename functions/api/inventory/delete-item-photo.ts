import { httpEndpoint } from '../../../lib/api/endpoint';
import { itemPhotoRoutes } from '../../../lib/inventory/photos/item-photo-routes';
import { deleteItemPhoto } from '../../../lib/inventory/photos/item-photo-service';

export const handler = httpEndpoint(itemPhotoRoutes.deletePhoto, ({ identity, params }) =>
  deleteItemPhoto(identity, params.item_id, params.photo_id),
);
