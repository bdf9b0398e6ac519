/** What the AI is shown of a contents list: sample pages, page descriptions, prompts. */
import type { PdfPageLayout } from '../../../../../lib/pdf/layout';
import {
  pageBoxesSystemPrompt,
  pageBoxesUserText,
  recipeSystemPrompt,
  recipeUserText,
  samplePages,
} from '../../../../../lib/pipelines/pdf/learning/recipe-prompt-rules';
import { RECIPE_JSON_SCHEMA } from '../../../../../lib/pipelines/pdf/learning/recipe-schemas';
import { RECIPE_STRATEGIES, STRATEGY_DESCRIPTIONS } from '../../../../../lib/pipelines/pdf/recipe';

const layout = (page: number, withText = true): PdfPageLayout => ({
  page,
  width: 612.2,
  height: 791.8,
  texts: withText ? [{ str: 'Sofa', x: 40.4, y: 230.6, width: 30, height: 11 }] : [],
  images: [{ id: '12 0 R', x: 40, y: 70.3, width: 200, height: 150, pixelWidth: 320, pixelHeight: 240, jpeg: true }],
});

describe('samplePages', () => {
  it('spreads the samples over the range, its ends included', () => {
    expect(samplePages({ first: 1, last: 100 }, 3)).toEqual([1, 51, 100]);
    expect(samplePages({ first: 3, last: 4 }, 3)).toEqual([3, 4]);
    expect(samplePages({ first: 5, last: 9 }, 1)).toEqual([5]);
    expect(samplePages({ first: 1, last: 0 }, 3)).toEqual([]);
    expect(samplePages({ first: 1, last: 10 }, 0)).toEqual([]);
  });
});

describe('prompts', () => {
  it('describes each sample page with rounded positions, image pixel sizes and its text lines', () => {
    const text = recipeUserText('acme.pdf', [layout(2), layout(3, false)], false);
    expect(text).toContain('Sample pages of the contents list "acme.pdf":');
    expect(text).toContain('Page 2 (612 x 792 pt):');
    expect(text).toContain('image at x=40 y=70 size 200 x 150 pt (320 x 240 px)');
    expect(text).toContain('text at x=40 y=231 h=11: Sofa');
    expect(text).toContain(
      'Page 3 (612 x 792 pt):\n  image at x=40 y=70 size 200 x 150 pt (320 x 240 px)\n  (no text layer)',
    );
    expect(recipeUserText('scan.pdf', [layout(1, false)], true)).toContain(
      '"scan.pdf" (their rendered images follow, in the same order):',
    );
  });

  it('names the strategies and the answer contract, and never asks for claim content', () => {
    const system = recipeSystemPrompt();
    expect(system).toContain('card_grid, header_runs, page_image');
    expect(system).toContain('never copy a name, an address, a claim number');
    expect(pageBoxesSystemPrompt()).toContain('{"photos": [ ... ]}');
    expect(pageBoxesUserText('scan.pdf', { page: 4, width: 612.4, height: 792 })).toBe(
      'Page 4 of the contents list "scan.pdf" (612 x 792 pt). Mark its photos.',
    );
  });

  it('describes every strategy in the prompt and in the answer schema with the same words', () => {
    const system = recipeSystemPrompt();
    const schema = RECIPE_JSON_SCHEMA.schema as { properties: { strategy: { description: string } } };
    for (const strategy of RECIPE_STRATEGIES) {
      expect(system).toContain(`${strategy} (${STRATEGY_DESCRIPTIONS[strategy]})`);
      expect(schema.properties.strategy.description).toContain(`${strategy}: ${STRATEGY_DESCRIPTIONS[strategy]}`);
    }
  });
});
