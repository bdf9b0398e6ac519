import { httpEndpoint } from '../../../lib/api/endpoint';
import { itemPhotoRoutes } from '../../../lib/inventory/photos/item-photo-routes';
import { addItemPhoto } from '../../../lib/inventory/photos/item-photo-upload-service';

export const handler = httpEndpoint(itemPhotoRoutes.attachPhoto, ({ identity, params, body }) =>
  addItemPhoto(identity, params.item_id, body),
);
