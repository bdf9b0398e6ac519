import { RECIPE_STRATEGIES } from '../../../../../lib/pipelines/pdf/recipe';
import { applyRecipe, FALLBACK_ORDER } from '../../../../../lib/pipelines/pdf/strategies/strategy-rules';
import { gridPage, page, recipe, run, stacked } from '../../../../support/pdf-layouts';

const grid = (n: number) => gridPage(n, { rows: 1, cols: 2, prefix: `p${n}`, cell: (r, c) => [`Item ${n}${r}${c}`] });
/** A card page whose pictures are drawn (vector paths): its labels and captions are there, no image is. */
const drawn = (n: number) =>
  page(n, { texts: [run('Acme - Contents inventory', 40, 20), ...stacked(50, 163, [`Item ${n}`, 'Oak chair'])] });

describe('applyRecipe', () => {
  it('falls back in one order that holds every recipe strategy once, page_image last', () => {
    expect(FALLBACK_ORDER.map((strategy) => strategy.name)).toEqual(['header_runs', 'card_grid', 'page_image']);
    expect([...RECIPE_STRATEGIES].sort()).toEqual(FALLBACK_ORDER.map((strategy) => strategy.name).sort());
  });

  it('reads embedded photos with the strategy that finds them', () => {
    expect(applyRecipe(recipe(), [grid(1), grid(2)])).toMatchObject({ strategy: 'card_grid', pagesToMark: [] });
    expect(applyRecipe(recipe(), [grid(1)]).findings).toHaveLength(2);
    const runs = applyRecipe(recipe({ strategy: 'header_runs', label_pattern: '^Item' }), [
      page(1, { texts: [run('Item 1 - Sofa', 50, 40)], images: grid(1).images }),
    ]);
    expect(runs).toMatchObject({ strategy: 'header_runs', pagesToMark: [] });
  });

  it('falls back from header_runs to card_grid', () => {
    const read = applyRecipe(recipe({ strategy: 'header_runs', label_pattern: '^Heading' }), [grid(1)]);
    expect(read.strategy).toBe('card_grid');
    expect(read.findings).toHaveLength(2);
  });

  it('never falls back to an earlier strategy: page_image marks pages that carry embedded photos', () => {
    const pages = [grid(1)];
    expect(applyRecipe(recipe({ strategy: 'page_image' }), pages)).toEqual({
      findings: [],
      pagesToMark: pages,
      strategy: 'page_image',
    });
    expect(applyRecipe(recipe({ strategy: 'card_grid', label_pattern: '^Item' }), pages).strategy).toBe('card_grid');
  });

  it.each(['card_grid', 'header_runs', 'page_image'] as const)(
    'ends in page images for %s when no embedded photo is found (pictures drawn as vectors)',
    (strategy) => {
      const pages = [drawn(1), drawn(2)];
      expect(applyRecipe(recipe({ strategy }), pages)).toEqual({
        findings: [],
        pagesToMark: pages,
        strategy: 'page_image',
      });
    },
  );
});
