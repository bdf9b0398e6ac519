/**
 * The pure rules of the photo pipeline (spec: Photo pipeline (live path);
 * Output budget and truncation): the per-request output budget and its
 * clamps, when an answer counts as cut short, which groups reach the AI with
 * which prompt, source notes, and reading the model's items leniently.
 */
import { draftFromModel, readModelItem, sourceNoteLine } from '../../lib/pipelines/photo/answer';
import { imageTokens, outputBudget, textTokens, wasCutShort } from '../../lib/pipelines/photo/budget';
import { mergeNotes, planGroups, promptNotes, SOURCE_NOTE_MAX_CHARS } from '../../lib/pipelines/photo/plan';
import { userText } from '../../lib/pipelines/photo/prompt';
import { aiGroups } from '../../lib/photos/requests';
import { refOf } from '../../lib/orchestrator/pipeline';
import { PIPELINE_CATALOG } from '../../lib/pipelines/catalog';
import { PIPELINES } from '../../lib/pipelines';

const config = {
  PHOTO_BUDGET_CREDIT_RATE_USD: 0.1,
  PHOTO_BUDGET_TARGET_MARGIN: 0.8,
  PHOTO_BUDGET_MIN_OUTPUT_TOKENS: 800,
  PHOTO_BUDGET_MAX_OUTPUT_TOKENS: 3500,
  PHOTO_BUDGET_TRUNCATION_RATIO: 0.95,
};

describe('output budget', () => {
  it('is (credit rate x margin - input cost) / $25 per million, input at $5 per million', () => {
    // 4000 chars of text = 1000 tokens; one 1500x750 image = 1500 tokens: 2500 input tokens = $0.0125.
    const budget = outputBudget({ texts: ['x'.repeat(4000)], images: [{ width: 1500, height: 750 }] }, config);
    expect(budget.inputTokens).toBe(2500);
    expect(budget.inputCostUsd).toBeCloseTo(0.0125, 10);
    expect(budget.maxTokens).toBe(Math.floor((0.08 - 0.0125) / 0.000025)); // 2700
  });

  it('clamps to the maximum for a small input and to the minimum for a huge one', () => {
    // With the defaults the budget tops out at $0.08 / $25 per million = 3200 tokens; a dearer credit reaches the clamp.
    expect(outputBudget({ texts: ['short'], images: [] }, config).maxTokens).toBe(3199);
    expect(
      outputBudget({ texts: ['short'], images: [] }, { ...config, PHOTO_BUDGET_CREDIT_RATE_USD: 0.2 }).maxTokens,
    ).toBe(3500);
    const five = Array.from({ length: 5 }, () => ({ width: 1240, height: 927 }));
    expect(outputBudget({ texts: ['x'.repeat(40_000)], images: five }, config).maxTokens).toBe(800);
  });

  it('counts photo tokens on the resized image', () => {
    expect(imageTokens(1568, 733)).toBe(Math.ceil((1568 * 733) / 750));
    expect(textTokens('abcde')).toBe(2);
  });

  it('an answer is cut short on finish_reason length or at the truncation ratio of its budget', () => {
    expect(wasCutShort({ finishReason: 'length', outputTokens: 10 }, 1000, config)).toBe(true);
    expect(wasCutShort({ finishReason: 'stop', outputTokens: 950 }, 1000, config)).toBe(true);
    expect(wasCutShort({ finishReason: 'stop', outputTokens: 949 }, 1000, config)).toBe(false);
  });
});

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
    expect(promptNotes(['y'.repeat(2000)])).toHaveLength(SOURCE_NOTE_MAX_CHARS);
    expect(promptNotes([])).toBeNull();
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

describe('pipeline catalog', () => {
  it('starts each registered pipeline the way the HTTP side names it', () => {
    for (const pipeline of PIPELINES) {
      expect(PIPELINE_CATALOG).toContainEqual(refOf(pipeline));
    }
    expect(PIPELINE_CATALOG).toHaveLength(PIPELINES.length);
  });
});

describe("reading the model's items", () => {
  it('coerces numbers in strings, clamps confidence and drops items without a name', () => {
    expect(
      readModelItem({ name: ' Lamp ', quantity: '2', estimated_price: '$1,200.50', confidence: 1.7 }),
    ).toMatchObject({ name: 'Lamp', quantity: 2, estimated_price: 1200.5, confidence: 1 });
    expect(readModelItem({ name: 'Chair', quantity: 0, confidence: 'high' })).toMatchObject({
      quantity: 1,
      confidence: 0.5,
      brand: null,
    });
    expect(readModelItem({ quantity: 1 })).toBeNull();
    expect(readModelItem('Lamp')).toBeNull();
  });

  it("a user's quantity overrides the model's, and a source note becomes a notes line", () => {
    const item = readModelItem({ name: 'Bowl', quantity: 1, confidence: 0.8, notes: 'chipped rim' })!;
    const draft = draftFromModel(item, {
      group_index: 4,
      photos: [{ filename: 'a.jpg', key: 'k' }],
      notes: ['Blue bowl set'],
      quantity: 6,
    });
    expect(draft).toMatchObject({
      name: 'Bowl',
      quantity: 6,
      notes: 'chipped rim\nFrom the source PDF: Blue bowl set',
      source_group_index: 4,
    });
    expect(sourceNoteLine([])).toBeNull();
  });
});
