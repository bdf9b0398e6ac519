/**
 * A claim's items seeded straight through the stores, as the exports and
 * operations benchmarks need them: `items` items across `rooms` rooms, each
 * with a primary photo (a 1024 px JPEG with texture, one of a few variants)
 * in the bucket.
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { blobKeys } from '../../../lib/blob/keys';
import type { Claim } from '../../../lib/claims/claim-record-rules';
import { putJpeg } from '../../../lib/blob/objects';
import { putRows } from '../../../lib/db/batch';
import { itemRowOf, photoRowOf } from '../../../lib/inventory/item-store';
import type { InventoryItem, ItemPhoto } from '../../../lib/inventory/item-record-rules';
import { photoUrl } from '../../../lib/photos/view';
import { putNewRoom } from '../../../lib/rooms/store';
import { texturedJpeg } from './textured-jpeg';

export const PHOTO_EDGE = 1024;
const DISTINCT_PHOTOS = 25;

/** A 1024 px photo with texture (so its JPEG size is a real photo's), one of a few variants. */
const photo = (seed: number) => texturedJpeg(PHOTO_EDGE, Math.round(PHOTO_EDGE * 0.75), seed);

/** Seeds the claim's rooms, items and item photos; answers the bytes of photo uploaded. */
export async function seedClaimItems(
  claim: Claim,
  { rooms, items }: { rooms: number; items: number },
): Promise<{ photoBytes: number }> {
  const teamId = claim.team_id;
  const photos = await Promise.all(Array.from({ length: DISTINCT_PHOTOS }, (_, i) => photo(i + 1)));
  const limit = pLimit(16);
  const now = new Date().toISOString();
  let number = 0;
  let photoBytes = 0;
  for (let r = 0; r < rooms; r++) {
    const room = await putNewRoom(claim, `Room ${r + 1}`);
    const jobId = randomUUID();
    const prefix = blobKeys.jobPrefix(teamId, claim.id, jobId);
    const rows: Record<string, unknown>[] = [];
    const uploads: Promise<void>[] = [];
    for (let i = 0; i < items / rooms; i++) {
      number++;
      const id = randomUUID();
      const filename = `${String(i).padStart(6, '0')}.jpg`;
      const key = `${prefix}photos/${filename}`;
      const jpeg = photos[number % DISTINCT_PHOTOS];
      photoBytes += jpeg.length;
      uploads.push(limit(() => putJpeg(key, jpeg)));
      const item: InventoryItem = {
        id,
        job_id: jobId,
        room_id: room.id,
        claim_id: claim.id,
        team_id: teamId,
        item_number: number,
        name: `Item ${number}: ${['Sofa', 'Lamp', 'Television', 'Chair', '=Formula'][number % 5]} with a longer description`,
        quantity: 1 + (number % 3),
        brand: 'Brand',
        model: `M-${number}`,
        serial: null,
        sku: null,
        condition: 'good',
        age: '2 years',
        estimated_price: 10 + (number % 500),
        damage: null,
        notes: number % 7 === 0 ? '-see photo' : null,
        room: room.name,
        confidence: 0.9,
        evidence: null,
        needs_review: false,
        reviewed: true,
        approved: number % 2 === 0,
        is_archived: false,
        archived_at: null,
        claims_platform_submitted_at: null,
        estimation_sent_at: null,
        // The primary photo's path, as every item with a photo carries it.
        photo_path: photoUrl(jobId, filename),
        created_pass: 1,
        source_group_index: i,
        created_at: now,
        updated_at: now,
      };
      const itemPhoto: ItemPhoto = {
        id: randomUUID(),
        item_id: id,
        filename,
        job_id: jobId,
        key,
        is_primary: true,
        ordering: 0,
      };
      rows.push(itemRowOf(item), photoRowOf(itemPhoto));
    }
    await putRows(rows);
    await Promise.all(uploads);
  }
  return { photoBytes };
}
