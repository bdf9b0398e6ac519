/**
 * The words of one photo group's request (spec: Photo pipeline 4, 7, 8;
 * Output budget: read the rest resends the photos with the names found).
 * The instructions come from the team's prompt settings or the built-in
 * defaults (lib/settings/prompt-rules.ts); this adds what is particular to the
 * group. Room and audio evidence are never asked for.
 */
import { OUTPUT_CONTRACT } from './answer-schemas';
import { promptNotes, type PlannedGroup } from './plan-rules';

export function systemPrompt(instructions: string): string {
  return `${instructions.trim()}\n\n${OUTPUT_CONTRACT}`;
}

export function imageLabel(group: Pick<PlannedGroup, 'photos'>, position: number): string {
  return `Photo ${position + 1} of ${group.photos.length}: ${group.photos[position].original_filename}`;
}

export function userText(group: PlannedGroup): string {
  const lines: string[] = [];
  if (group.is_segment) {
    lines.push(
      group.photos.length > 1
        ? `These ${group.photos.length} crops were drawn by the user around one known item. Return exactly one item for it; never split it into several.`
        : 'This crop was drawn by the user around one known item. Return exactly one item for it; never split it into several.',
    );
    if (group.quantity) lines.push(`The user counted ${group.quantity} of it.`);
  } else if (group.prompt === 'merged') {
    lines.push(
      `These ${group.photos.length} photos all show one single item from different angles or distances. Return exactly one item, combining what every photo shows.`,
    );
  } else {
    lines.push('Identify every inventoriable contents item in this photo.');
  }
  const notes = promptNotes(group.notes);
  if (notes) {
    lines.push(
      'A source note came with the photo (from a contents list or the homeowner). Identify the items from the photo first; use the note only to confirm or sharpen them, never as an item name. When the photo and the note disagree, the photo wins.',
      `Source note:\n${notes}`,
    );
  }
  if (group.pass > 1 && group.names_found.length) {
    lines.push(
      'An earlier answer for this photo was cut short. These items were already found:',
      group.names_found.map((n) => `- ${n}`).join('\n'),
      'List only items that are NOT in that list. If there are none, answer {"items": []}.',
    );
  }
  return lines.join('\n\n');
}
