/**
 * The homeowner's drafts (spec: Insured link limits; Insured link, public):
 * what a file may be, the link's ceilings, and how the photos of a room are
 * grouped at submit. Pure: settings are passed in.
 */
import type { Settings } from '../config';
import { IMAGE_EXTENSIONS } from '../photos/upload-rules';
import { splitBalanced } from '../photos/split-rules';
import { extensionOf } from '../text';
import { ALLOWED_EXTENSIONS, type UploadKind } from '../uploads/rules';

const MIB = 1024 * 1024;

/** A file of the draft: a photo (of a room or of a typed row), or a video or voice note of a room. */
export type DraftFileKind = 'photo' | UploadKind;

/**
 * The link's ceilings in bytes and counts. A setting of 0 or less disables
 * its ceiling (Infinity here); the byte ceiling is lifetime: what was reserved
 * stays reserved when a file is removed.
 */
export interface LinkCeilings {
  photoBytes: number;
  mediaBytes: number;
  totalBytes: number;
  files: number;
  items: number;
  chunkBytes: number;
}

const ceiling = (value: number, unit = 1) => (value > 0 ? Math.floor(value * unit) : Number.POSITIVE_INFINITY);

export function linkCeilings(
  config: Pick<
    Settings,
    | 'INSURED_MAX_FILE_MB'
    | 'INSURED_MAX_VIDEO_MB'
    | 'INSURED_LINK_MAX_TOTAL_MB'
    | 'INSURED_LINK_MAX_FILES'
    | 'INSURED_LINK_MAX_ITEMS'
    | 'INSURED_CHUNK_MB'
  >,
): LinkCeilings {
  return {
    photoBytes: ceiling(config.INSURED_MAX_FILE_MB, MIB),
    mediaBytes: ceiling(config.INSURED_MAX_VIDEO_MB, MIB),
    totalBytes: ceiling(config.INSURED_LINK_MAX_TOTAL_MB, MIB),
    files: ceiling(config.INSURED_LINK_MAX_FILES),
    items: ceiling(config.INSURED_LINK_MAX_ITEMS),
    // S3 takes parts of 5 MiB at least (the last one excepted).
    chunkBytes: Math.max(5 * MIB, ceiling(config.INSURED_CHUNK_MB > 0 ? config.INSURED_CHUNK_MB : 16, MIB)),
  };
}

const mb = (bytes: number) => `${Math.round((bytes / MIB) * 10) / 10} MB`;

export type DraftProblem = { status: 413 | 415; detail: string };

const IMAGE_TYPES = /^image\/[a-z0-9.+-]+$/;

/** Why a photo (a room's file or a typed row's photo) is refused before anything is written, or null. */
export function photoFileProblem(
  file: { filename: string; content_type: string; size: number },
  ceilings: Pick<LinkCeilings, 'photoBytes'>,
): DraftProblem | null {
  const type = file.content_type.trim().toLowerCase();
  const ext = extensionOf(file.filename);
  if (type.startsWith('video/') || type.startsWith('audio/'))
    return {
      status: 415,
      detail: 'Videos and voice notes go through the chunked upload (uploads/init), not as a photo.',
    };
  if (!IMAGE_TYPES.test(type) && !(IMAGE_EXTENSIONS as readonly string[]).includes(ext))
    return {
      status: 415,
      detail: `Only photos can be added here (JPEG, PNG, HEIC, WebP, GIF or TIFF); "${file.filename}" is not one.`,
    };
  if (file.size > ceilings.photoBytes)
    return { status: 413, detail: `A photo may be at most ${mb(ceilings.photoBytes)}; this one is ${mb(file.size)}.` };
  return null;
}

/** Why a video or voice note is refused at init, or null. */
export function mediaFileProblem(
  file: { kind: UploadKind; filename: string; total_size: number },
  ceilings: Pick<LinkCeilings, 'mediaBytes'>,
): DraftProblem | null {
  if (!ALLOWED_EXTENSIONS[file.kind].includes(extensionOf(file.filename))) {
    const allowed = ALLOWED_EXTENSIONS[file.kind].map((e) => `.${e}`).join(', ');
    const noun = file.kind === 'video' ? 'a video' : 'a voice note';
    return { status: 415, detail: `"${file.filename}" is not ${noun} this service takes (${allowed}).` };
  }
  if (file.total_size > ceilings.mediaBytes)
    return {
      status: 413,
      detail: `A video or voice note may be at most ${mb(ceilings.mediaBytes)}; this one is ${mb(file.total_size)}.`,
    };
  return null;
}

/** The link's running totals that its ceilings apply to. */
export interface LinkUsage {
  bytes_reserved: number;
  files_count: number;
  items_count: number;
}

/**
 * Which ceiling a new file of `bytes` would pass, as the 413 message, or
 * null when it fits. The store makes the same check atomically; this one
 * explains a refusal.
 */
export function fileCeilingProblem(
  usage: LinkUsage,
  bytes: number,
  ceilings: Pick<LinkCeilings, 'files' | 'totalBytes'>,
): string | null {
  if (usage.files_count + 1 > ceilings.files)
    return `This link holds its limit of ${ceilings.files} files; remove one before adding another.`;
  if (usage.bytes_reserved + bytes > ceilings.totalBytes)
    return (
      `This link's uploads are limited to ${mb(ceilings.totalBytes)} in all (${mb(usage.bytes_reserved)} used; ` +
      'removed files still count).'
    );
  return null;
}

export function itemCeilingProblem(usage: LinkUsage, ceilings: Pick<LinkCeilings, 'items'>): string | null {
  return usage.items_count + 1 > ceilings.items
    ? `This link holds its limit of ${ceilings.items} typed items; remove one before adding another.`
    : null;
}

/**
 * The most a counter may hold before one more is added, for a conditional
 * write (`counter <= bound`); null when the ceiling is off.
 */
export function boundBefore(limit: number, adding: number): number | null {
  return Number.isFinite(limit) ? limit - adding : null;
}

/**
 * Grouping of a room's homeowner photos at submit: photos that carry the
 * same note (ignoring case and spacing) were described together and make one
 * group; a photo without a note is a group of its own. A group over the
 * per-item cap is cut with the balanced split (spec: PDF import, the same
 * split applied at submit). Answers each photo's group index, from
 * `firstGroupIndex`, in the photos' order.
 */
export function homeownerPhotoGroups(notes: (string | null)[], maxPerItem: number, firstGroupIndex = 0): number[] {
  const groups: number[][] = [];
  const byNote = new Map<string, number[]>();
  notes.forEach((note, i) => {
    const key = note?.trim().replace(/\s+/g, ' ').toLowerCase();
    if (!key) {
      groups.push([i]);
      return;
    }
    const members = byNote.get(key);
    if (members) members.push(i);
    else {
      const opened = [i];
      byNote.set(key, opened);
      groups.push(opened);
    }
  });
  const out: number[] = new Array(notes.length);
  let next = firstGroupIndex;
  for (const members of groups) {
    for (const block of splitBalanced(members, maxPerItem)) {
      for (const i of block) out[i] = next;
      next += 1;
    }
  }
  return out;
}

/** Files a submit leaves behind because their bytes have not all arrived (not yet taken by an earlier submit). */
export function stillUploading<T extends { status: string; round: number | null }>(files: T[]): T[] {
  return files.filter((f) => f.round === null && ['pending', 'open', 'completing'].includes(f.status));
}

/** The draft's rows a submit takes: ready, not yet taken by an earlier submit. */
export function awaitingSubmit<T extends { status: string; round: number | null }>(rows: T[]): T[] {
  return rows.filter((r) => r.status === 'ready' && r.round === null);
}

/** A row that went with a submit belongs to the adjuster now: the homeowner can no longer change it. */
export const SUBMITTED_ROW = 'This was already submitted to the adjuster and can no longer be changed.';

/** The fields of a typed row that become the item's: what the homeowner typed. */
export function typedRowFields(row: {
  name: string;
  quantity: number;
  brand: string | null;
  model: string | null;
  age: string | null;
  estimated_price: number | null;
  notes: string | null;
}) {
  const { name, quantity, brand, model, age, estimated_price, notes } = row;
  return { name, quantity, brand, model, age, estimated_price, notes };
}
