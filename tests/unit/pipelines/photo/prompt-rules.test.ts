/**
 * The words of one photo group's request (spec: Photo pipeline (live path) 4, 7, 8; Output budget and
 * truncation): the system prompt, the label of each photo and the user text per kind of group.
 */
import { OUTPUT_CONTRACT } from '../../../../lib/pipelines/photo/answer-schemas';
import type { PlannedGroup, PlannedPhoto } from '../../../../lib/pipelines/photo/plan-rules';
import { imageLabel, systemPrompt, userText } from '../../../../lib/pipelines/photo/prompt-rules';

const photo = (index: number, original_filename = `IMG_${index}.jpg`): PlannedPhoto => ({
  index,
  filename: `orig_${String(index).padStart(4, '0')}.jpg`,
  key: `k/${index}.jpg`,
  original_filename,
  is_segment: false,
  normalized: true,
});

const group = (extra: Partial<PlannedGroup> = {}): PlannedGroup => ({
  group_index: 0,
  kind: 'ai',
  prompt: 'unmerged',
  is_segment: false,
  photos: [photo(0)],
  manual_name: null,
  quantity: null,
  notes: [],
  pass: 1,
  names_found: [],
  ...extra,
});

const paragraphs = (text: string) => text.split('\n\n');

describe('systemPrompt', () => {
  it("follows the team's instructions with the output contract", () => {
    expect(systemPrompt('  List the contents.\n')).toBe(`List the contents.\n\n${OUTPUT_CONTRACT}`);
  });
});

describe('imageLabel', () => {
  it("numbers each photo of the group and names the user's file", () => {
    const merged = group({ photos: [photo(3, 'front.HEIC'), photo(4, 'back.jpg')] });
    expect(imageLabel(merged, 0)).toBe('Photo 1 of 2: front.HEIC');
    expect(imageLabel(merged, 1)).toBe('Photo 2 of 2: back.jpg');
  });
});

describe('userText', () => {
  it('asks a single photo for every contents item in it', () => {
    expect(userText(group())).toBe('Identify every inventoriable contents item in this photo.');
  });

  it('asks a merged group for exactly one item combining its photos', () => {
    const text = userText(group({ prompt: 'merged', photos: [photo(0), photo(1), photo(2)] }));
    expect(text).toBe(
      'These 3 photos all show one single item from different angles or distances. Return exactly one item, combining what every photo shows.',
    );
  });

  it('asks a segment for exactly one known item, never split, with the count the user gave', () => {
    const one = group({ prompt: 'merged', is_segment: true, quantity: 4 });
    expect(paragraphs(userText(one))).toEqual([
      'This crop was drawn by the user around one known item. Return exactly one item for it; never split it into several.',
      'The user counted 4 of it.',
    ]);
    const several = group({ prompt: 'merged', is_segment: true, photos: [photo(0), photo(1)] });
    expect(paragraphs(userText(several))).toEqual([
      'These 2 crops were drawn by the user around one known item. Return exactly one item for it; never split it into several.',
    ]);
  });

  it('appends the source notes as evidence the photo outranks, never as the name', () => {
    const text = userText(group({ prompt: 'merged', photos: [photo(0), photo(1)], notes: ['Red chair', 'Oak'] }));
    const [, rule, note] = paragraphs(text);
    expect(rule).toMatch(/use the note only to confirm or sharpen them, never as an item name/);
    expect(rule).toMatch(/When the photo and the note disagree, the photo wins\./);
    expect(note).toBe('Source note:\nRed chair\nOak');
  });

  it('on a later pass lists the names already found and asks only for new items', () => {
    const text = userText(group({ pass: 2, names_found: ['Sofa', 'Lamp'] }));
    expect(paragraphs(text)).toEqual([
      'Identify every inventoriable contents item in this photo.',
      'An earlier answer for this photo was cut short. These items were already found:',
      '- Sofa\n- Lamp',
      'List only items that are NOT in that list. If there are none, answer {"items": []}.',
    ]);
  });

  it('asks plainly again on a later pass when nothing was found, and never on the first one', () => {
    expect(userText(group({ pass: 2 }))).toBe(userText(group()));
    expect(userText(group({ pass: 1, names_found: ['Sofa'] }))).toBe(userText(group()));
  });

  it('never asks for a room or audio evidence', () => {
    const texts = [
      userText(group()),
      userText(group({ prompt: 'merged', photos: [photo(0), photo(1)], notes: ['n'] })),
      userText(group({ is_segment: true, quantity: 2, pass: 3, names_found: ['Vase'] })),
      systemPrompt('Instructions.'),
    ];
    expect(texts.join('\n').toLowerCase()).not.toMatch(/\broom\b|audio/);
  });
});
