/**
 * How a claim-level contents-list import splits its photos by room (spec:
 * PDF import 10): room names matched case-insensitively (and ignoring runs of
 * spaces) against the claim's active rooms; a name with no match becomes a new
 * room; a photo whose document names no room goes to a room named after its
 * file. Pure.
 */

/** The name rooms are matched by. */
export const roomMatchKey = (name: string) => name.trim().replace(/\s+/g, ' ').toLowerCase();

/** The room a file's photos go to when it names none: the file's name without .pdf. */
export function documentRoomName(filename: string): string {
  const stem = filename
    .replace(/\.pdf$/i, '')
    .replace(/[_]+/g, ' ')
    .trim();
  return (stem || 'Contents list').slice(0, 200);
}

export interface SplitPhoto {
  room: string | null;
  documentFilename: string;
}

export interface RoomBucket {
  /** The match key: the same for every spelling of the name. */
  key: string;
  /** The name as first printed (a new room gets it). */
  name: string;
  /** The claim's active room it matched (the oldest of that name), or null for a new one. */
  roomId: string | null;
  /** Positions of its photos in the input, in order. */
  positions: number[];
}

/** The photos by room, rooms in the order they first appear. */
export function roomBuckets(
  photos: SplitPhoto[],
  rooms: { id: string; name: string; created_at: string }[],
): RoomBucket[] {
  const existing = new Map<string, string>();
  for (const room of [...rooms].sort((a, b) => a.created_at.localeCompare(b.created_at))) {
    const key = roomMatchKey(room.name);
    if (!existing.has(key)) existing.set(key, room.id);
  }
  const buckets = new Map<string, RoomBucket>();
  photos.forEach((photo, position) => {
    const printed = photo.room?.trim()
      ? photo.room.trim().replace(/\s+/g, ' ')
      : documentRoomName(photo.documentFilename);
    const key = roomMatchKey(printed);
    let bucket = buckets.get(key);
    if (!bucket) {
      bucket = { key, name: printed, roomId: existing.get(key) ?? null, positions: [] };
      buckets.set(key, bucket);
    }
    bucket.positions.push(position);
  });
  return [...buckets.values()];
}

/**
 * A room job's numbering of its photos: index i in order, and each photo's
 * group the index of the first photo of its group, so groups stay as the
 * documents filed them and no group number can be another photo's own.
 */
export function renumberedGroups(groupIndexes: number[]): number[] {
  const first = new Map<number, number>();
  return groupIndexes.map((group, i) => {
    if (!first.has(group)) first.set(group, i);
    return first.get(group) as number;
  });
}
