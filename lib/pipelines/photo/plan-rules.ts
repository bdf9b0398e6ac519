/**
 * Which calls a photo run makes (spec: Photo pipeline (live path) 3-8): the
 * staged photos of a job become groups, and each group is either described
 * (a user name: no AI call, no credit) or one AI call with the 'merged'
 * prompt (several photos of one item, or a segment: exactly one item) or the
 * 'unmerged' prompt (one photo: any number of items).
 *
 * Which photos take part and which groups reach the AI are the rules of
 * lib/photos (isVisiblePhoto, aiGroups), so the quote, the charge and the run
 * count the same groups.
 */
import { aiGroups, isVisiblePhoto } from '../../photos/grouping-rules';
import type { StagedPhoto } from '../../photos/staged-photo-record-rules';

/** Spec: a source note is appended to the user prompt, truncated at 1,200 characters. */
export const SOURCE_NOTE_MAX_CHARS = 1200;

export interface PlannedPhoto {
  index: number;
  filename: string;
  key: string;
  original_filename: string;
  is_segment: boolean;
  /** Its JPEG was stored when the run started (else the unit makes it first). */
  normalized: boolean;
}

export interface PlannedGroup {
  group_index: number;
  kind: 'described' | 'ai';
  prompt: 'merged' | 'unmerged';
  is_segment: boolean;
  photos: PlannedPhoto[];
  /** The user's name of a described group. */
  manual_name: string | null;
  /** The user's quantity (overrides the model's). */
  quantity: number | null;
  /** Source notes of the group's photos, de-duplicated, in photo order. */
  notes: string[];
  /** The labels a contents list printed for the group's photos, de-duplicated, in photo order (absent in older plans). */
  labels?: string[];
  /** Read the rest: which pass this call is (1 = the first call) and the names already found. */
  pass: number;
  names_found: string[];
}

type PlanPhoto = Pick<
  StagedPhoto,
  | 'index'
  | 'filename'
  | 'key'
  | 'original_filename'
  | 'group_index'
  | 'is_segment'
  | 'manual_name'
  | 'quantity'
  | 'deleted'
  | 'source_description'
  | 'hidden_by_segments'
> & { normalized?: boolean; segment_of?: number | null; source_label?: string | null };

/** De-duplicated notes (case- and space-insensitive), in order. */
export function mergeNotes(notes: (string | null | undefined)[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const note of notes) {
    const trimmed = note?.replace(/\s+/g, ' ').trim();
    if (!trimmed) continue;
    const key = trimmed.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(trimmed);
  }
  return out;
}

/** The groups of a run, in group order. */
export function planGroups(photos: PlanPhoto[]): PlannedGroup[] {
  const byGroup = new Map<number, PlanPhoto[]>();
  const reachesAi = new Set(aiGroups(photos));
  for (const photo of photos.filter(isVisiblePhoto).sort((a, b) => a.index - b.index)) {
    const list = byGroup.get(photo.group_index) ?? [];
    list.push(photo);
    byGroup.set(photo.group_index, list);
  }
  // A segment group takes its original photo's place, so its item is numbered where the photo was.
  const anchor = (members: PlanPhoto[]) =>
    members[0].is_segment && typeof members[0].segment_of === 'number' ? members[0].segment_of : members[0].group_index;
  return [...byGroup.entries()]
    .sort(([a, am], [b, bm]) => anchor(am) - anchor(bm) || Number(am[0].is_segment) - Number(bm[0].is_segment) || a - b)
    .map(([group_index, members]) => {
      const name = members.map((m) => m.manual_name?.trim()).find(Boolean) ?? null;
      const quantity = members.map((m) => m.quantity).find((q) => typeof q === 'number' && q >= 1) ?? null;
      const isSegment = members.every((m) => m.is_segment);
      return {
        group_index,
        kind: reachesAi.has(group_index) ? 'ai' : 'described',
        prompt: isSegment || members.length > 1 ? 'merged' : 'unmerged',
        is_segment: isSegment,
        photos: members.map((m) => ({
          index: m.index,
          filename: m.filename,
          key: m.key,
          original_filename: m.original_filename,
          is_segment: m.is_segment,
          normalized: Boolean(m.normalized),
        })),
        manual_name: name,
        quantity,
        notes: mergeNotes(members.map((m) => m.source_description)),
        labels: mergeNotes(members.map((m) => m.source_label)),
        pass: 1,
        names_found: [],
      } satisfies PlannedGroup;
    });
}

/** The source notes as the prompt carries them: joined and cut at SOURCE_NOTE_MAX_CHARS. */
export function promptNotes(notes: string[]): string | null {
  if (!notes.length) return null;
  const joined = notes.join('\n');
  return joined.length > SOURCE_NOTE_MAX_CHARS ? joined.slice(0, SOURCE_NOTE_MAX_CHARS) : joined;
}
