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
import { thumbnail } from '../media/resize';
import { logger } from '../observability/logger';

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
export async function loadThumbnails(items: { id: string }[]): Promise<Map<string, Thumbnail>> {
  const limit = pLimit(IN_FLIGHT);
  const thumbnails = new Map<string, Thumbnail>();
  let unreadable = 0;
  await Promise.all(
    items.map((item) =>
      limit(async () => {
        const photos = await listItemPhotos(item.id);
        const primary = photos.find((p) => p.is_primary) ?? photos[0];
        if (!primary) return;
        const object = await readObject(primary.key);
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
