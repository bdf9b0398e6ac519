/** Items as the API shows them (spec: InventoryItem, ItemPhoto). */
import { photoUrl } from '../photos/view';
import type { InventoryItem, ItemPhoto } from './item-store';

export function itemView(item: InventoryItem, photos: ItemPhoto[]) {
  const { team_id, created_pass, ...rest } = item;
  void team_id;
  void created_pass;
  return {
    ...rest,
    photos: photos.map((p) => ({
      id: p.id,
      filename: p.filename,
      url: photoUrl(p.job_id, p.filename),
      is_primary: p.is_primary,
      ordering: p.ordering,
    })),
  };
}
