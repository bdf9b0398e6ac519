import { httpEndpoint } from '../../../lib/api/endpoint';
import { itemPhotoRoutes } from '../../../lib/inventory/photos/item-photo-routes';
import { updatePrimaryItemPhoto } from '../../../lib/inventory/photos/item-photo-upload-service';

export const handler = httpEndpoint(itemPhotoRoutes.replacePhoto, ({ identity, params, body }) =>
  updatePrimaryItemPhoto(identity, params.item_id, body),
);
