/**
 * Covers: lib/pipelines/photo/plan-rules.ts, lib/pipelines/photo/prompt-rules.ts.
 *
 * Which groups of a photo run reach the AI with which prompt, source notes,
 * and the words of a group's request (spec: Photo pipeline (live path)).
 */
import { aiGroups } from '../../../../lib/photos/grouping-rules';
import { mergeNotes, planGroups, promptNotes, SOURCE_NOTE_MAX_CHARS } from '../../../../lib/pipelines/photo/plan-rules';
import { userText } from '../../../../lib/pipelines/photo/prompt-rules';

const photo = (index: number, extra: Record<string, unknown> = {}) => ({
  index,
  filename: `orig_${String(index).padStart(4, '0')}.jpg`,
  key: `k/${index}.jpg`,
  original_filename: `p${index}.jpg`,
  group_index: index,
  is_segment: false,
  manual_name: null as string | null,
  quantity: null as number | null,
  deleted: false,
  source_description: null as string | null,
  hidden_by_segments: false,
  ...extra,
});

describe('planning the groups', () => {
  it('one photo: unmerged; several: merged; a name: described; deleted and hidden photos take no part', () => {
    const photos = [
      photo(0),
      photo(1, { group_index: 1 }),
      photo(2, { group_index: 1 }),
      photo(3, { manual_name: '  Piano ', quantity: 2 }),
      photo(4, { deleted: true }),
      photo(5, { hidden_by_segments: true }),
      photo(6, { is_segment: true, segment_of: 5, group_index: 6, manual_name: '' }),
      photo(7, { is_segment: true, segment_of: 5, group_index: 7, manual_name: 'Vase', quantity: 3 }),
    ];
    const plan = planGroups(photos);
    expect(plan.map((g) => [g.group_index, g.kind, g.prompt])).toEqual([
      [0, 'ai', 'unmerged'],
      [1, 'ai', 'merged'],
      [3, 'described', 'unmerged'],
      [6, 'ai', 'merged'],
      [7, 'described', 'merged'],
    ]);
    expect(plan[2]).toMatchObject({ manual_name: 'Piano', quantity: 2 });
    // The quote and the charge count exactly the AI groups of the plan.
    expect(aiGroups(photos)).toEqual(plan.filter((g) => g.kind === 'ai').map((g) => g.group_index));
  });

  it('puts a segment group where its original photo was', () => {
    const photos = [
      photo(0),
      photo(1, { hidden_by_segments: true }),
      photo(2),
      photo(9, { is_segment: true, segment_of: 1, group_index: 9 }),
    ];
    expect(planGroups(photos).map((g) => g.group_index)).toEqual([0, 9, 2]);
  });

  it('joins and de-duplicates the notes of merged photos, and cuts the prompt note at 1,200 characters', () => {
    expect(mergeNotes(['Red chair', ' red  chair ', null, 'Oak table'])).toEqual(['Red chair', 'Oak table']);
    const plan = planGroups([
      photo(0, { group_index: 0, source_description: 'Red chair' }),
      photo(1, { group_index: 0, source_description: 'red chair' }),
    ]);
    expect(plan[0].notes).toEqual(['Red chair']);
    expect(plan[0].labels).toEqual([]);
    expect(promptNotes(['y'.repeat(2000)])).toHaveLength(SOURCE_NOTE_MAX_CHARS);
    expect(promptNotes([])).toBeNull();
  });

  it("carries the contents list's printed labels of a group's photos, each once, in photo order", () => {
    const plan = planGroups([
      photo(0, { group_index: 0, source_label: 'Item 0018' }),
      photo(1, { group_index: 0, source_label: 'item 0018' }),
      photo(2, { group_index: 0, source_label: 'Item 0019' }),
      photo(3, { group_index: 3 }),
    ]);
    expect(plan.map((g) => g.labels)).toEqual([['Item 0018', 'Item 0019'], []]);
  });

  it('the note goes into the prompt as evidence, never as the name, and the read-the-rest prompt lists the names found', () => {
    const [group] = planGroups([photo(0, { source_description: 'Sony TV 55 inch' })]);
    const text = userText(group);
    expect(text).toContain('Sony TV 55 inch');
    expect(text).toMatch(/never as an item name/);
    const again = userText({ ...group, pass: 2, names_found: ['Television', 'Remote'] });
    expect(again).toContain('- Television\n- Remote');
    expect(again).toMatch(/NOT in that list/);
    expect(`${text}\n${again}`.toLowerCase()).not.toMatch(/\broom\b|audio/);
  });
});
