/**
 * What both sends put in their remote payloads the same way (spec: Estimation
 * platform send, item mapping; Claims platform send): blank values left out
 * rather than sent as null, an item's title and quantity, and photos as
 * absolute URLs of the stored /api/photos/... paths under PUBLIC_BASE_URL,
 * primary first. Pure.
 */
import type { InventoryItem, ItemPhoto } from '../inventory/item-record-rules';
import { photoUrl } from '../photos/view';

/** A value worth sending: blank strings are omitted, never sent as null. */
export function present(value: string | null | undefined): string | undefined {
  const text = value?.trim();
  return text ? text : undefined;
}

/** Drops the keys whose value is undefined, so an omitted field is absent from the JSON. */
export function compact<T extends Record<string, unknown>>(record: T): T {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as T;
}

/** The item's title as the remotes require one (never empty). */
export const itemTitle = (item: Pick<InventoryItem, 'name'>) => present(item.name) ?? 'Untitled item';

/** The item's quantity as the remotes require it: a positive integer. */
export const itemQuantity = (item: Pick<InventoryItem, 'quantity'>) => Math.max(1, Math.round(item.quantity || 1));

type PhotoRow = Pick<ItemPhoto, 'job_id' | 'filename' | 'is_primary' | 'ordering'>;

/** The public base URL without a trailing slash; '' when unset (photos cannot travel then). */
export const publicBase = (publicBaseUrl: string) => publicBaseUrl.trim().replace(/\/+$/, '');

/** The photos primary first, then by ordering, each with its absolute URL; none without a public base URL. */
export function publicPhotoUrls<P extends PhotoRow>(photos: P[], publicBaseUrl: string): { photo: P; url: string }[] {
  const base = publicBase(publicBaseUrl);
  if (!base) return [];
  return [...photos]
    .sort((a, b) => Number(b.is_primary) - Number(a.is_primary) || a.ordering - b.ordering)
    .map((photo) => ({ photo, url: `${base}${photoUrl(photo.job_id, photo.filename)}` }));
}
