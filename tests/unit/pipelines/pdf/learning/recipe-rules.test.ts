/** Covers: lib/pipelines/pdf/learning/recipe-rules.ts and recipe-schemas.ts (reading the recipe the model writes). */
import { DEFAULT_RECIPE } from '../../../../../lib/pipelines/pdf/recipe';
import { coerceRecipe, recipeFromAnswer } from '../../../../../lib/pipelines/pdf/learning/recipe-rules';
import {
  MAX_IGNORE_PATTERNS,
  MAX_PATTERN_LENGTH,
  RECIPE_BOUNDS,
  RECIPE_JSON_SCHEMA,
  RECIPE_OUTPUT_CONTRACT,
} from '../../../../../lib/pipelines/pdf/learning/recipe-schemas';

const full = {
  strategy: 'header_runs',
  label_pattern: String.raw`^Item \d+`,
  room_pattern: String.raw`^Room:\s*(.+)$`,
  ignore_patterns: [String.raw`^Page \d+ of \d+$`, '^Acme Restoration'],
  description_position: 'right',
  description_max_gap_pt: 30,
  description_line_gap_pt: 4,
  min_image_px: 120,
};

describe('coerceRecipe', () => {
  it('keeps a well-formed recipe as it is', () => {
    expect(coerceRecipe(full)).toEqual(full);
  });

  it('discards unknown fields', () => {
    const recipe = coerceRecipe({ ...full, insured: 'Jane Doe', notes: 'x' });
    expect(Object.keys(recipe).sort()).toEqual(Object.keys(DEFAULT_RECIPE).sort());
    expect(recipe).toEqual(full);
  });

  it.each([null, undefined, 'card_grid', 42, [full]])('reads %j as the default recipe', (raw) => {
    expect(coerceRecipe(raw)).toEqual(DEFAULT_RECIPE);
  });

  it('fills missing fields with the defaults', () => {
    expect(coerceRecipe({ strategy: 'page_image' })).toEqual({ ...DEFAULT_RECIPE, strategy: 'page_image' });
  });

  it.each([
    ['card_grid', 'card_grid'],
    ['Header Runs', 'header_runs'],
    ['page-image', 'page_image'],
    [' CARD_GRID ', 'card_grid'],
    ['masonry', 'card_grid'],
    [3, 'card_grid'],
  ])('reads strategy %j as %s', (strategy, expected) => {
    expect(coerceRecipe({ strategy }).strategy).toBe(expected);
  });

  it.each([
    ['above', 'above'],
    ['Left', 'left'],
    ['underneath', 'below'],
    [null, 'below'],
  ])('reads description_position %j as %s', (description_position, expected) => {
    expect(coerceRecipe({ description_position }).description_position).toBe(expected);
  });

  it.each([
    [30, 30],
    ['30', 30],
    ['30pt', 30],
    [' 12.5 points ', 12.5],
    ['.5', 0.5],
    [-4, 0],
    ['-4', 0],
    [1000, 144],
    ['wide', 24],
    [true, 24],
    [Number.NaN, 24],
    [Number.POSITIVE_INFINITY, 24],
    [null, 24],
  ])('reads description_max_gap_pt %j as %j (bounds 0..144, default 24)', (value, expected) => {
    expect(coerceRecipe({ description_max_gap_pt: value }).description_max_gap_pt).toBe(expected);
  });

  it('clamps description_line_gap_pt to 0..72 and defaults it to 6', () => {
    expect(coerceRecipe({ description_line_gap_pt: '8' }).description_line_gap_pt).toBe(8);
    expect(coerceRecipe({ description_line_gap_pt: 500 }).description_line_gap_pt).toBe(72);
    expect(coerceRecipe({ description_line_gap_pt: {} }).description_line_gap_pt).toBe(6);
  });

  it.each([
    ['200px', 200],
    [99.6, 100],
    [0, 16],
    [50_000, 1000],
    ['none', 80],
  ])('reads min_image_px %j as %j (whole pixels, 16..1000, default 80)', (value, expected) => {
    expect(coerceRecipe({ min_image_px: value }).min_image_px).toBe(expected);
  });

  it('drops a label_pattern that does not compile, is blank, is not a string or is too long', () => {
    expect(coerceRecipe({ label_pattern: '^Item (' }).label_pattern).toBeNull();
    expect(coerceRecipe({ label_pattern: '   ' }).label_pattern).toBeNull();
    expect(coerceRecipe({ label_pattern: 12 }).label_pattern).toBeNull();
    expect(coerceRecipe({ label_pattern: 'a'.repeat(MAX_PATTERN_LENGTH + 1) }).label_pattern).toBeNull();
    expect(coerceRecipe({ label_pattern: 'a'.repeat(MAX_PATTERN_LENGTH) }).label_pattern).toBe(
      'a'.repeat(MAX_PATTERN_LENGTH),
    );
  });

  it('takes a /literal/ without flags as its body, and keeps one with flags as written', () => {
    expect(coerceRecipe({ label_pattern: String.raw`/^Item \d+/` }).label_pattern).toBe(String.raw`^Item \d+`);
    expect(coerceRecipe({ label_pattern: '/^Item/i' }).label_pattern).toBe('/^Item/i');
  });

  it('keeps a room_pattern only when it compiles and has a group for the room', () => {
    expect(coerceRecipe({ room_pattern: '^Room: (.+)$' }).room_pattern).toBe('^Room: (.+)$');
    expect(coerceRecipe({ room_pattern: '^Room: (?<room>.+)$' }).room_pattern).toBe('^Room: (?<room>.+)$');
    expect(coerceRecipe({ room_pattern: '^Room: .+$' }).room_pattern).toBeNull();
    expect(coerceRecipe({ room_pattern: '^Room: (?:.+)$' }).room_pattern).toBeNull();
    expect(coerceRecipe({ room_pattern: '^Room: (.+$' }).room_pattern).toBeNull();
    expect(coerceRecipe({ room_pattern: null }).room_pattern).toBeNull();
  });

  it('keeps the ignore_patterns that compile, each once, in order', () => {
    expect(coerceRecipe({ ignore_patterns: ['^Page', '(', '^Page', 7, '', '^Total'] }).ignore_patterns).toEqual([
      '^Page',
      '^Total',
    ]);
  });

  it('reads one ignore pattern given as a string, and none from null', () => {
    expect(coerceRecipe({ ignore_patterns: '^Page' }).ignore_patterns).toEqual(['^Page']);
    expect(coerceRecipe({ ignore_patterns: null }).ignore_patterns).toEqual([]);
    expect(coerceRecipe({ ignore_patterns: '[' }).ignore_patterns).toEqual([]);
  });

  it('keeps at most MAX_IGNORE_PATTERNS ignore patterns', () => {
    const many = Array.from({ length: MAX_IGNORE_PATTERNS + 5 }, (_, i) => `^line ${i}$`);
    expect(coerceRecipe({ ignore_patterns: many }).ignore_patterns).toEqual(many.slice(0, MAX_IGNORE_PATTERNS));
  });
});

describe('recipeFromAnswer', () => {
  it('reads the object, the object under "recipe", and either as JSON text', () => {
    expect(recipeFromAnswer(full)).toEqual(full);
    expect(recipeFromAnswer({ recipe: full })).toEqual(full);
    expect(recipeFromAnswer(JSON.stringify(full))).toEqual(full);
    expect(recipeFromAnswer(`Here it is:\n\`\`\`json\n${JSON.stringify({ recipe: full })}\n\`\`\``)).toEqual(full);
  });

  it('coerces what it reads', () => {
    expect(recipeFromAnswer({ strategy: 'Card Grid', min_image_px: '64', extra: 1 })).toEqual({
      ...DEFAULT_RECIPE,
      min_image_px: 64,
    });
  });

  it('reads an answer with no object as no recipe', () => {
    expect(recipeFromAnswer('not json')).toBeNull();
    expect(recipeFromAnswer('[1, 2]')).toBeNull();
    expect(recipeFromAnswer(null)).toBeNull();
    expect(recipeFromAnswer([full])).toBeNull();
  });
});

describe('the recipe answer schema', () => {
  const schema = RECIPE_JSON_SCHEMA.schema as {
    required: string[];
    additionalProperties: boolean;
    properties: Record<string, { minimum?: number; maximum?: number; type?: string; enum?: string[] }>;
  };

  it('is strict: every recipe field required, nothing else allowed', () => {
    expect(RECIPE_JSON_SCHEMA.name).toBe('contents_list_recipe');
    expect(schema.required.sort()).toEqual(Object.keys(DEFAULT_RECIPE).sort());
    expect(schema.additionalProperties).toBe(false);
  });

  it('states the strategies, the positions and the numeric bounds the coercion applies', () => {
    expect(schema.properties.strategy.enum).toEqual(['card_grid', 'header_runs', 'page_image']);
    expect(schema.properties.description_position.enum).toEqual(['below', 'above', 'right', 'left']);
    for (const [field, [min, max]] of Object.entries(RECIPE_BOUNDS)) {
      expect(schema.properties[field]).toMatchObject({ minimum: min, maximum: max });
    }
    expect(schema.properties.min_image_px.type).toBe('integer');
  });

  it('names every field in the output contract', () => {
    for (const field of Object.keys(DEFAULT_RECIPE)) expect(RECIPE_OUTPUT_CONTRACT).toContain(field);
  });

  it('gives default values that lie inside the bounds', () => {
    for (const [field, [min, max]] of Object.entries(RECIPE_BOUNDS)) {
      const value = DEFAULT_RECIPE[field as keyof typeof RECIPE_BOUNDS];
      expect(value).toBeGreaterThanOrEqual(min);
      expect(value).toBeLessThanOrEqual(max);
    }
  });
});
