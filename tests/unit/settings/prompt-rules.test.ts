/** Covers: lib/settings/prompt-rules.ts, lib/settings/prompt-schemas.ts, lib/settings/prompt-view.ts */
import {
  DEFAULT_PROMPTS,
  describePromptChanges,
  promptChangeLabel,
  resolvePrompts,
} from '../../../lib/settings/prompt-rules';
import {
  DEFAULT_PROMPT_SETTINGS,
  PROMPT_MAX_CHARS,
  PROMPT_MAX_PRESETS,
  type PromptSettings,
  promptSettingsSchema,
} from '../../../lib/settings/prompt-schemas';
import { promptSettingsView } from '../../../lib/settings/prompt-view';

const preset = (name: string, text = 'Identify the item.') => ({
  name,
  merged: `${text} (merged)`,
  unmerged: `${text} (unmerged)`,
});
const issuesOf = (value: unknown) => {
  const result = promptSettingsSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
};
describe('prompt settings schema', () => {
  it('defaults every field: null prompts mean the built-in defaults', () => {
    expect(promptSettingsSchema.parse({})).toEqual({ merged: null, unmerged: null, presets: [] });
    expect(DEFAULT_PROMPT_SETTINGS).toEqual({ merged: null, unmerged: null, presets: [] });
  });

  it('trims prompt texts and preset names', () => {
    const parsed = promptSettingsSchema.parse({
      merged: '  One item.  ',
      unmerged: null,
      presets: [{ name: ' Kitchen ', merged: ' a ', unmerged: ' b ' }],
    });
    expect(parsed).toEqual({
      merged: 'One item.',
      unmerged: null,
      presets: [{ name: 'Kitchen', merged: 'a', unmerged: 'b' }],
    });
  });

  it(`caps each prompt text at ${PROMPT_MAX_CHARS} characters (after trimming)`, () => {
    expect(PROMPT_MAX_CHARS).toBe(6000);
    expect(issuesOf({ merged: 'x'.repeat(PROMPT_MAX_CHARS) })).toEqual([]);
    expect(issuesOf({ merged: ` ${'x'.repeat(PROMPT_MAX_CHARS)} ` })).toEqual([]);
    expect(issuesOf({ merged: 'x'.repeat(PROMPT_MAX_CHARS + 1) })).toEqual([
      { path: 'merged', message: 'must be at most 6000 characters' },
    ]);
    expect(issuesOf({ presets: [{ name: 'Big', merged: 'ok', unmerged: 'y'.repeat(PROMPT_MAX_CHARS + 1) }] })).toEqual([
      { path: 'presets.0.unmerged', message: 'must be at most 6000 characters' },
    ]);
  });

  it('refuses blank prompt texts and blank or over-long preset names', () => {
    expect(issuesOf({ unmerged: '   ' })).toEqual([{ path: 'unmerged', message: 'must not be blank' }]);
    expect(issuesOf({ presets: [{ name: 'A', merged: '', unmerged: 'b' }] })).toEqual([
      { path: 'presets.0.merged', message: 'must not be blank' },
    ]);
    expect(issuesOf({ presets: [preset('  ')] })).toEqual([{ path: 'presets.0.name', message: 'must not be blank' }]);
    expect(issuesOf({ presets: [preset('n'.repeat(80))] })).toEqual([]);
    expect(issuesOf({ presets: [preset('n'.repeat(81))] })).toEqual([
      { path: 'presets.0.name', message: 'must be at most 80 characters' },
    ]);
    expect(issuesOf({ presets: [{ name: 'A', merged: 'a' }] })[0].path).toBe('presets.0.unmerged');
  });

  it(`allows at most ${PROMPT_MAX_PRESETS} presets`, () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => preset(`Preset ${i + 1}`));
    expect(issuesOf({ presets: many(20) })).toEqual([]);
    expect(issuesOf({ presets: many(21) })).toEqual([{ path: 'presets', message: 'at most 20 presets' }]);
  });

  it('requires unique preset names, ignoring case and surrounding spaces', () => {
    expect(issuesOf({ presets: [preset('Kitchen'), preset('Garage'), preset(' kitchen ')] })).toEqual([
      { path: 'presets.2.name', message: 'duplicate preset name "kitchen" (names are compared ignoring case)' },
    ]);
  });

  it('rejects unknown fields and wrong types', () => {
    expect(issuesOf({ mergd: 'typo' })[0].message).toMatch(/unrecognized key/i);
    expect(issuesOf({ merged: 42 })).toEqual([{ path: 'merged', message: 'must be text' }]);
    expect(issuesOf({ presets: 'none' })[0].path).toBe('presets');
  });
});

describe('built-in prompts', () => {
  it.each(['merged', 'unmerged'] as const)(
    '%s: keeps to contents, asks for every item field, never for a room or audio',
    (kind) => {
      const text = DEFAULT_PROMPTS[kind];
      expect(text.length).toBeLessThanOrEqual(PROMPT_MAX_CHARS);
      expect(promptSettingsSchema.safeParse({ [kind]: text }).success).toBe(true);
      for (const field of [
        'name',
        'quantity',
        'brand',
        'model',
        'serial',
        'sku',
        'condition',
        'age',
        'estimated price',
        'damage',
        'confidence',
        'evidence',
        'bounding box',
      ]) {
        expect(text).toContain(field);
      }
      expect(text).toMatch(/replacement cost in US dollars/);
      expect(text).toMatch(/Never list walls, floors/);
      expect(text).toMatch(/built-in plumbing/);
      expect(text).toMatch(/building systems/);
      expect(text).not.toMatch(/\broom\b|audio/i);
    },
  );

  it('merged asks for exactly one item from all photos; unmerged for every item with quantities', () => {
    expect(DEFAULT_PROMPTS.merged).toMatch(/ONE single item/);
    expect(DEFAULT_PROMPTS.merged).toMatch(/return exactly one item/);
    expect(DEFAULT_PROMPTS.merged).toMatch(/evidence of all photos/);
    expect(DEFAULT_PROMPTS.unmerged).toMatch(/List every distinct item/);
    expect(DEFAULT_PROMPTS.unmerged).toMatch(/Identical items are one line with a quantity/);
  });
});

describe('effective prompts and the settings view', () => {
  it('uses the team prompt when set and the default otherwise, saying which', () => {
    const settings: PromptSettings = { merged: 'Team merged', unmerged: null, presets: [] };
    expect(resolvePrompts(settings)).toEqual({
      merged: 'Team merged',
      unmerged: DEFAULT_PROMPTS.unmerged,
      source: { merged: 'team', unmerged: 'default' },
    });
    expect(resolvePrompts(DEFAULT_PROMPT_SETTINGS).source).toEqual({ merged: 'default', unmerged: 'default' });
  });

  it('shows the settings, the defaults, what is in effect and the caps', () => {
    const view = promptSettingsView({ merged: null, unmerged: 'Mine', presets: [preset('Kitchen')] });
    expect(view).toEqual({
      merged: null,
      unmerged: 'Mine',
      presets: [preset('Kitchen')],
      defaults: { merged: DEFAULT_PROMPTS.merged, unmerged: DEFAULT_PROMPTS.unmerged },
      effective: { merged: DEFAULT_PROMPTS.merged, unmerged: 'Mine' },
      max_chars: 6000,
      max_presets: 20,
    });
  });
});

describe('what changed (activity label)', () => {
  const base: PromptSettings = { merged: 'Old merged', unmerged: null, presets: [preset('Garage'), preset('Attic')] };
  const label = (after: Partial<PromptSettings>) =>
    promptChangeLabel(describePromptChanges(base, { ...base, ...after }));

  it('names the prompt and preset changes', () => {
    expect(label({ merged: 'New merged', presets: [...base.presets, preset('Kitchen')] })).toBe(
      'Changed the merged prompt; added preset Kitchen',
    );
    expect(label({ merged: null })).toBe('Reset the merged prompt to the default');
    expect(label({ unmerged: 'Custom' })).toBe('Set a custom unmerged prompt');
    expect(label({ presets: [preset('Garage')] })).toBe('Removed preset Attic');
    expect(label({ presets: [preset('Garage', 'Different'), preset('Attic')] })).toBe('Changed preset Garage');
    expect(label({ presets: [preset('garage'), preset('Attic')] })).toBe('Changed preset garage');
    expect(label({ presets: [preset('Attic'), preset('Garage')] })).toBe('Reordered the presets');
  });

  it('is empty when nothing changed', () => {
    expect(describePromptChanges(base, { ...base, presets: [...base.presets] })).toEqual([]);
  });
});
