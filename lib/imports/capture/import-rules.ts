/**
 * Capture import rules (spec: Capture source integration > import manifest
 * and import job steps 1 and 3; Events > Inbound webhook from the capture
 * source, rule 1). Pure: what a manifest selects from an assignment's
 * media, where each selected item lands (room, job, photo number, group),
 * how the downloads are cut into units and how many bytes each may bring,
 * and the webhook's signature check.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type CaptureMediaType = 'photo' | 'video' | 'audio';

type ManifestScope =
  | { scope: 'assignment' }
  | { scope: 'location'; id: string }
  | { scope: 'group'; id: string }
  | { scope: 'media'; ids: string[] };

type ImportTarget =
  | { mode: 'new_claim' }
  | { mode: 'existing_claim'; claim_id: string }
  | { mode: 'room'; room_id: string; claim_id?: string };

export interface CaptureManifest {
  assignment_id: string;
  target: ImportTarget;
  select?: ManifestScope[];
  exclude?: ManifestScope[];
  filters?: { types?: CaptureMediaType[]; submitted_only?: boolean };
  /** A webhook's batch: what delivered it. */
  auto?: { event_id: string; submission_id: string; delivery_id: string | null };
}

/** A media item as the capture source lists it (the fields the rules read). */
export interface SourceMedia {
  id: string;
  type: CaptureMediaType;
  location_id: string | null;
  group_id: string | null;
  filename: string;
  content_type: string;
  size_bytes: number;
  captured_at: string | null;
  synced: boolean;
  submitted: boolean;
}

function inScope(media: SourceMedia, scope: ManifestScope): boolean {
  switch (scope.scope) {
    case 'assignment':
      return true;
    case 'location':
      return media.location_id === scope.id;
    case 'group':
      return media.group_id === scope.id;
    case 'media':
      return scope.ids.includes(media.id);
  }
}

/**
 * Step 1: the media a manifest selects, in capture order, each once: synced
 * media only; what any `select` scope takes (the whole assignment when there
 * is none), less what any `exclude` scope takes, kept to `filters.types` and,
 * with `submitted_only`, to submitted media.
 */
export function selectMedia<T extends SourceMedia>(media: T[], manifest: CaptureManifest): T[] {
  const select = manifest.select?.length ? manifest.select : [{ scope: 'assignment' } as const];
  const exclude = manifest.exclude ?? [];
  const types = manifest.filters?.types?.length ? manifest.filters.types : null;
  const seen = new Set<string>();
  return media.filter((m) => {
    if (seen.has(m.id)) return false;
    seen.add(m.id);
    if (!m.synced) return false;
    if (!select.some((s) => inScope(m, s)) || exclude.some((s) => inScope(m, s))) return false;
    if (types && !types.includes(m.type)) return false;
    return !manifest.filters?.submitted_only || m.submitted;
  });
}

/** Where media with no location (or a location the tree does not know) lands. */
export const UNSORTED_ROOM = 'Unsorted';

/** Step 3: the room name each selected item lands in: its location's name (a room import: its one room). */
export function roomNameOf(media: SourceMedia, locations: Map<string, string>): string {
  const name = media.location_id ? locations.get(media.location_id)?.trim() : undefined;
  return name || UNSORTED_ROOM;
}

/** The claim number a new claim gets: the assignment's reference, else its title. */
export function claimNumberOf(assignment: { reference: string; title: string; id: string }): string {
  return (assignment.reference.trim() || assignment.title.trim() || `Assignment ${assignment.id}`).slice(0, 100);
}

/** One photo of a room job: its number in the job and its group (photos of one capture group share it). */
export interface PhotoPlace {
  index: number;
  group_index: number;
}

/**
 * Step 3: the photos of one room job numbered in capture order from
 * `firstIndex`; a capture group's photos share the group of its first photo,
 * a photo in no group is a group of its own.
 */
export function photoPlaces(groups: (string | null)[], firstIndex = 0): PhotoPlace[] {
  const groupStart = new Map<string, number>();
  return groups.map((group, i) => {
    const index = firstIndex + i;
    if (group === null) return { index, group_index: index };
    const start = groupStart.get(group);
    if (start !== undefined) return { index, group_index: start };
    groupStart.set(group, index);
    return { index, group_index: index };
  });
}

/**
 * A group's index once some of its photos failed to arrive: the smallest
 * index among the group's photos that did (a group is named by its first photo).
 */
export function settledGroups(photos: PhotoPlace[]): Map<number, number> {
  const first = new Map<number, number>();
  for (const p of photos) first.set(p.group_index, Math.min(first.get(p.group_index) ?? p.index, p.index));
  return new Map(photos.map((p) => [p.index, first.get(p.group_index) as number]));
}

/**
 * Step 4: the downloads cut into units, in order: at most `maxItems` (the
 * signing batch) and, past the first item, at most `maxBytes` per unit, so
 * no unit comes near a worker's time limit and each signs its URLs just
 * before it downloads them.
 */
export function downloadUnits<T extends { size_bytes: number }>(items: T[], maxItems: number, maxBytes: number): T[][] {
  const units: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const item of items) {
    if (current.length && (current.length >= maxItems || bytes + item.size_bytes > maxBytes)) {
      units.push(current);
      current = [];
      bytes = 0;
    }
    current.push(item);
    bytes += item.size_bytes;
  }
  if (current.length) units.push(current);
  return units;
}

/** The upload limits a download is held to (spec: Limits), in bytes. */
export interface DownloadLimits {
  /** Single photo hard limit. */
  photoBytes: number;
  /** MAX_UPLOAD_SIZE_MB: video and audio. */
  recordingBytes: number;
}

/** The most bytes a download may bring, and those bytes as a reason says them. */
export interface ByteCap {
  maxBytes: number;
  words: string;
}

const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/** The upload limit of a media type (a photo's proxy is held to the photo limit). */
export function uploadLimit(type: CaptureMediaType, limits: DownloadLimits): ByteCap {
  if (type === 'photo')
    return { maxBytes: limits.photoBytes, words: `the ${megabytes(limits.photoBytes)} limit for a single photo` };
  return {
    maxBytes: limits.recordingBytes,
    words: `the ${megabytes(limits.recordingBytes)} limit for video and audio`,
  };
}

/**
 * Steps 4-5: what the download of one item may bring: no more than the
 * capture source declared for it, and never more than its type's upload
 * limit. An item declared over that limit is not downloaded at all: the
 * reason is returned instead.
 */
export function downloadCap(media: Pick<SourceMedia, 'type' | 'size_bytes'>, limits: DownloadLimits): ByteCap | string {
  const limit = uploadLimit(media.type, limits);
  if (media.size_bytes > limit.maxBytes)
    return `Not downloaded: the capture source declares ${media.size_bytes} bytes, over ${limit.words}.`;
  return { maxBytes: media.size_bytes, words: `the ${media.size_bytes} bytes the capture source declared` };
}

/** The batch's status when a run ends (spec: States > ImportBatch). */
export function runStatus(counts: { imported: number; failed: number }): 'complete' | 'partial' | 'failed' {
  if (counts.failed === 0) return 'complete';
  return counts.imported > 0 ? 'partial' : 'failed';
}

/**
 * Events rule 1: X-Capture-Signature is `sha256=<hex HMAC-SHA256 of the raw
 * body>` under the shared secret, compared in constant time on the bytes.
 */
export function captureSignatureValid(rawBody: Buffer, header: string | undefined, secret: string): boolean {
  if (!secret || !header) return false;
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(Buffer.from(match[1], 'hex'), expected);
}
