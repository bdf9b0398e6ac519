/**
 * Item photos as the remote platforms fetch them (spec: Estimation platform
 * send, item mapping; Claims platform send, photos by URL): absolute URLs of
 * the stored /api/photos/... paths under PUBLIC_BASE_URL, primary first. Pure.
 */
import type { ItemPhoto } from '../inventory/item-store';
import { photoUrl } from '../photos/view';

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
