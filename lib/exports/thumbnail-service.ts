/**
 * Thumbnails of the items' primary photos, made once per export and shared
 * by every place that shows them (the workbook's Photos sheet, the report's
 * rows). Photos are read from the bucket and shrunk a bounded number at a
 * time, and only the small JPEGs are kept: 5,000 thumbnails of ~4 KB each
 * rather than 5,000 photos.
 */
import pLimit from 'p-limit';
import { readObject } from '../blob/objects';
import { listItemPhotos } from '../inventory/item-store';
import type { InventoryItem } from '../inventory/item-record-rules';
import { thumbnail } from '../media/resize';
import { logger } from '../observability/logger';
import { photoKeyOfPath } from '../photos/rules';

/** Long edge of an export thumbnail, in pixels: about a row of a sheet or a line of the report. */
const THUMBNAIL_EDGE_PX = 128;
const THUMBNAIL_QUALITY = 70;
/** Photo reads and decodes in flight: S3 latency overlaps, and sharp's own threads use the cores. */
const IN_FLIGHT = 8;

export interface Thumbnail {
  jpeg: Buffer;
  width: number;
  height: number;
}

/**
 * The thumbnail of each item's primary photo (the first photo when none is marked primary), by item
 * id. An item without a photo, or whose photo is gone or unreadable, has none; the export shows it
 * without one rather than failing.
 */
export async function loadThumbnails(
  items: Pick<InventoryItem, 'id' | 'team_id' | 'claim_id' | 'photo_path'>[],
): Promise<Map<string, Thumbnail>> {
  const limit = pLimit(IN_FLIGHT);
  const thumbnails = new Map<string, Thumbnail>();
  let unreadable = 0;
  await Promise.all(
    items.map((item) =>
      limit(async () => {
        const object = (await readPrimaryByPath(item)) ?? (await readPrimaryByRows(item.id));
        if (!object) return;
        try {
          const small = await thumbnail(object.body, THUMBNAIL_EDGE_PX, THUMBNAIL_QUALITY);
          thumbnails.set(item.id, { jpeg: small.jpeg, width: small.width, height: small.height });
        } catch {
          unreadable++;
        }
      }),
    ),
  );
  if (unreadable > 0) logger.warn('export: some photos could not be read', { unreadable });
  return thumbnails;
}

/**
 * The primary photo through the item's photo_path (a copy of the primary's path): one read, no
 * query of the photo rows. Null when the path names no object of the item's claim.
 */
async function readPrimaryByPath(item: Pick<InventoryItem, 'team_id' | 'claim_id' | 'photo_path'>) {
  const key = photoKeyOfPath(item.photo_path, item.team_id, item.claim_id);
  return key ? readObject(key) : null;
}

/** The primary photo through the item's photo rows (the first photo when none is marked primary). */
async function readPrimaryByRows(itemId: string) {
  const photos = await listItemPhotos(itemId);
  const primary = photos.find((p) => p.is_primary) ?? photos[0];
  return primary ? readObject(primary.key) : null;
}
