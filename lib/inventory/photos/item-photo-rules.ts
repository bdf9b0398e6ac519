/**
 * The pure rules of an item's photos (spec: ItemPhoto; Inventory photo
 * routes): the order of the photos (ordering 0..n-1, no gaps), which one is
 * primary (exactly one while the item has photos), the list after each photo
 * operation, and the row writes that turn one list into another. Also what an
 * item photo upload may be. No I/O: lib/inventory/photos/item-photo-service.ts and
 * item-photo-upload-service.ts apply them.
 */
import { classifyFile, IMAGE_EXTENSIONS, SINGLE_PHOTO_MAX_BYTES } from '../../photos/upload-rules';

/** What the rules need of a photo row; the other fields travel along untouched. */
export interface OrderedPhoto {
  id: string;
  is_primary: boolean;
  ordering: number;
}

export const PHOTO_NOT_FOUND = 'Photo not found';
export const SAME_ITEM_MOVE = 'The photo is already on this item; choose another item to move it to.';

/** The photos by ordering (ties by id, so the order is stable for rows written before ordering was kept dense). */
export function inOrder<P extends OrderedPhoto>(photos: readonly P[]): P[] {
  return [...photos].sort((a, b) => a.ordering - b.ordering || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The list as it must be stored: in order, numbered 0..n-1, and exactly one
 * primary when there are photos (the first primary in order wins; with none,
 * the first photo becomes primary).
 */
export function settled<P extends OrderedPhoto>(photos: readonly P[]): P[] {
  const ordered = inOrder(photos);
  const primaryId = (ordered.find((p) => p.is_primary) ?? ordered[0])?.id;
  return ordered.map((p, ordering) => ({ ...p, ordering, is_primary: p.id === primaryId }));
}

/** The primary photo, or null for an item without photos. */
export function primaryOf<P extends OrderedPhoto>(photos: readonly P[]): P | null {
  return settled(photos).find((p) => p.is_primary) ?? null;
}

/** A new photo at the end; it becomes primary only when the item had none. */
export function withAppended<P extends OrderedPhoto>(photos: readonly P[], photo: P): P[] {
  const current = settled(photos);
  return settled([...current, { ...photo, ordering: current.length, is_primary: current.length === 0 }]);
}

/**
 * The primary photo replaced by a new one: the old primary leaves the list
 * and the new photo takes its place and its primary role (for an item without
 * photos it is the only one).
 */
export function withPrimaryReplaced<P extends OrderedPhoto>(photos: readonly P[], photo: P): P[] {
  const current = settled(photos);
  const old = current.find((p) => p.is_primary);
  const rest = current.filter((p) => p !== old).map((p) => ({ ...p, is_primary: false }));
  const position = old ? old.ordering : 0;
  rest.splice(position, 0, { ...photo, is_primary: true });
  return renumbered(rest);
}

/** Without photo `id`; when it was primary, the next one in order (else the one before) becomes primary. */
export function withRemoved<P extends OrderedPhoto>(photos: readonly P[], id: string): P[] {
  const current = settled(photos);
  const gone = current.find((p) => p.id === id);
  const rest = current.filter((p) => p.id !== id);
  if (!gone?.is_primary || rest.length === 0) return settled(rest);
  const next = rest[Math.min(gone.ordering, rest.length - 1)];
  return settled(rest.map((p) => ({ ...p, is_primary: p.id === next.id })));
}

/** Photo `id` primary, every other photo demoted. */
export function withPrimary<P extends OrderedPhoto>(photos: readonly P[], id: string): P[] {
  return settled(photos.map((p) => ({ ...p, is_primary: p.id === id })));
}

/** Photo `id` moved to `position` (past the end means last), the others renumbered around it. */
export function withPosition<P extends OrderedPhoto>(photos: readonly P[], id: string, position: number): P[] {
  const current = settled(photos);
  const photo = current.find((p) => p.id === id);
  if (!photo) return current;
  const rest = current.filter((p) => p.id !== id);
  rest.splice(Math.max(0, Math.min(position, rest.length)), 0, photo);
  return renumbered(rest);
}

function renumbered<P extends OrderedPhoto>(photos: P[]): P[] {
  return photos.map((p, ordering) => ({ ...p, ordering }));
}

/** 404 text when the photo is not one of the item's photos, else null. */
export function photoOfItemProblem(photos: readonly OrderedPhoto[], id: string): string | null {
  return photos.some((p) => p.id === id) ? null : PHOTO_NOT_FOUND;
}

/** 400 text for a move onto the photo's own item, else null. */
export function moveProblem(sourceItemId: string, targetItemId: string): string | null {
  return sourceItemId === targetItemId ? SAME_ITEM_MOVE : null;
}

function sameRow(a: object, b: object): boolean {
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const names = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...names].every((name) => left[name] === right[name]);
}

/**
 * The row writes that turn an item's stored photo rows `from` into `to`:
 * rows to put (new or changed) and rows to delete (no longer on the item).
 */
export function photoWrites<P extends OrderedPhoto>(from: readonly P[], to: readonly P[]): { put: P[]; remove: P[] } {
  const before = new Map(from.map((p) => [p.id, p]));
  const after = new Set(to.map((p) => p.id));
  return {
    put: to.filter((p) => {
      const old = before.get(p.id);
      return !old || !sameRow(old, p);
    }),
    remove: from.filter((p) => !after.has(p.id)),
  };
}

// ---------------------------------------------------------------------------
// Uploads
// ---------------------------------------------------------------------------

export type ItemUploadProblem = { status: 413 | 422; detail: string };

/** What the first call of an item photo upload may declare: an image extension (422) within the single-photo limit (413). */
export function itemUploadProblem(file: { filename: string; size: number }): ItemUploadProblem | null {
  if (classifyFile(file.filename) !== 'image')
    return {
      status: 422,
      detail: `${file.filename} is not a supported photo type. Accepted: ${IMAGE_EXTENSIONS.join(', ')}.`,
    };
  if (file.size > SINGLE_PHOTO_MAX_BYTES)
    return {
      status: 413,
      detail: `${file.filename} is larger than the ${SINGLE_PHOTO_MAX_BYTES / (1024 * 1024)} MB limit for a single photo.`,
    };
  return null;
}

/** Which of the two upload routes issued an upload: its key is good for that route only. */
export type ItemUploadPurpose = 'attach' | 'replace';

/** The metadata an item photo upload carries in its signed POST policy, read back on confirm. */
export interface ItemUploadMeta {
  item_id: string;
  purpose: ItemUploadPurpose;
  index: number;
}

export const UPLOAD_NOT_FOUND = 'Upload not found: upload the photo with the URL this route issued, then confirm it.';

/**
 * Whether the stored object's signed metadata says this route issued it for
 * this item and this photo number (a key of another item, another route or
 * with its number altered is refused).
 */
export function isIssuedUpload(metadata: Record<string, string>, expected: ItemUploadMeta): boolean {
  return (
    metadata['item-id'] === expected.item_id &&
    metadata['upload-purpose'] === expected.purpose &&
    metadata['photo-index'] === String(expected.index)
  );
}

/** An upload key: the upload's id and the photo number it was given (<uuid>.<number>). */
export const UPLOAD_KEY_PATTERN = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(\d{1,6})$/;

export function uploadKeyOf(uploadId: string, index: number): string {
  return `${uploadId}.${index}`;
}

/** The parts of an upload key, or null when it is not one. */
export function parseUploadKey(key: string): { uploadId: string; index: number } | null {
  const m = UPLOAD_KEY_PATTERN.exec(key);
  return m ? { uploadId: m[1], index: Number(m[2]) } : null;
}

/** The stored name of a photo added to an item after processing: item_0042.jpg (the job's photo numbering). */
export function itemPhotoFilename(index: number): string {
  return `item_${String(index).padStart(4, '0')}.jpg`;
}
