/** Inventory use cases behind /api/inventory (spec: Inventory). The full editing surface is built on these records later. */
import type { Identity } from '../auth/identity-rules';
import { loadJobForTeam } from '../tenancy/service';
import { listItemPhotos, listJobItems } from './item-store';
import { itemView } from './view';

/** GET /api/inventory/{job_id}: the job's items with their photos, by item number; archived items only when asked for. */
export async function listInventory(identity: Identity, jobId: string, options: { archived: boolean }) {
  const job = await loadJobForTeam(identity, jobId);
  const items = (await listJobItems(job.id)).filter((item) => options.archived || !item.is_archived);
  const views: ReturnType<typeof itemView>[] = new Array(items.length);
  // Each item's photos are one Query; a bounded number run at once.
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(16, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        views[i] = itemView(items[i], await listItemPhotos(items[i].id));
      }
    }),
  );
  return views;
}
