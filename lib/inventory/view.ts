/** Items as the API shows them (spec: InventoryItem, ItemPhoto). */
import { photoUrl } from '../photos/view';
import type { InventoryItem, ItemPhoto } from './item-record-rules';

export function itemView(item: InventoryItem, photos: ItemPhoto[]) {
  // Internal bookkeeping stays inside: ownership, the pass that made it, the write revision, who auto-approved.
  const { team_id, created_pass, rev, approved_by, ...rest } = item as InventoryItem & { approved_by?: string };
  void team_id;
  void created_pass;
  void rev;
  void approved_by;
  return {
    ...rest,
    source_label: item.source_label ?? null,
    photos: photos.map((p) => ({
      id: p.id,
      filename: p.filename,
      url: photoUrl(p.job_id, p.filename),
      is_primary: p.is_primary,
      ordering: p.ordering,
    })),
  };
}
