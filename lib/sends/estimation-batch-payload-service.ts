/**
 * The payload of a recorded estimation send batch (estimation-delivery-service.ts):
 * its items read as they are now, each with the links of its photos, and the
 * warning the adjuster sees when photos could not be linked.
 */
import pLimit from 'p-limit';
import type { Claim } from '../claims/claim-record-rules';
import type { Settings } from '../config';
import type { EstimationItem } from '../integrations/estimation-platform';
import { getItem } from '../inventory/item-store';
import { logger } from '../observability/logger';
import { loadItemPhotos } from './claim-items-service';
import { itemHasPhotos, itemPhotoLinks, remoteItem } from './estimation-rules';
import { batchItemIds, type EstimationSend } from './estimation-store';

/** Item reads and stamps in flight at once: a claim of thousands of items is read and stamped in seconds. */
export const ITEM_WRITES_AT_ONCE = 25;

export const PHOTOS_NOT_SENT =
  'Photos were not sent: this service has no public address configured (PUBLIC_BASE_URL), so the estimation platform could not fetch them.';

/** Builds the remote payload of a recorded batch from the items as they are now. */
export async function loadRemoteBatch(
  record: EstimationSend,
  claim: Claim,
  config: Settings,
): Promise<{ ids: string[]; items: EstimationItem[]; photosIncluded: number; warnings: string[] }> {
  const limit = pLimit(ITEM_WRITES_AT_ONCE);
  const ids = await batchItemIds(record);
  const rows = (await Promise.all(ids.map((id) => limit(() => getItem(id))))).filter((i) => i !== null);
  const photos = await loadItemPhotos(rows);
  let photosIncluded = 0;
  let photoedItems = 0;
  const items = rows.map((item) => {
    const rowsOfItem = photos.get(item.id) ?? [];
    if (itemHasPhotos(item, rowsOfItem)) photoedItems++;
    const links = itemPhotoLinks(item, rowsOfItem, config.PUBLIC_BASE_URL);
    photosIncluded += links.length;
    return remoteItem(item, links);
  });
  const warnings: string[] = [];
  if (photoedItems > 0 && photosIncluded === 0) {
    logger.warn('estimation send without photos: PUBLIC_BASE_URL is empty', {
      claim_id: claim.id,
      photoed_items: photoedItems,
    });
    warnings.push(PHOTOS_NOT_SENT);
  }
  return { ids, items, photosIncluded, warnings };
}
