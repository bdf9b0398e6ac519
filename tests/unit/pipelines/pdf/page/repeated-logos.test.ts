/**
 * A logo on every page of a real contents list (generated with pdf-lib, read
 * with the PDF reader) is never one of its photos, however the writer stored
 * it: one image drawn on every page, the same bytes embedded anew for each
 * page, or each page's copy re-encoded. Every item photo (each different) is
 * still found.
 */
import type { PdfPageLayout } from '../../../../../lib/pdf/layout';
import { openPdf } from '../../../../../lib/pdf/reader';
import { readCardGrid } from '../../../../../lib/pipelines/pdf/strategies/card-grid-rules';
import { CARD_GRID_RECIPE, cardGridList, type LogoEmbedding } from '../../../../support/pdf-fixtures';
import { recipe } from '../../../../support/pdf-layouts';

/** Over the recipe's min_image_px on both edges, so only its repetition keeps it out. */
const LOGO_PX = [160, 80] as const;

async function read(embedding: LogoEmbedding) {
  const fixture = await cardGridList({ pages: 4, logo: { embedding, px: LOGO_PX } });
  const reader = await openPdf(fixture.bytes);
  try {
    const pages: PdfPageLayout[] = [];
    for (let page = 1; page <= reader.pageCount; page++) pages.push(await reader.pageLayout(page));
    return { fixture, pages };
  } finally {
    await reader.close();
  }
}

describe.each<[LogoEmbedding, (logos: { id: string; contentHash?: string }[]) => void]>([
  ['once', (logos) => expect(new Set(logos.map((l) => l.id)).size).toBe(1)],
  [
    'every-page',
    (logos) => {
      expect(new Set(logos.map((l) => l.id)).size).toBe(4);
      expect(new Set(logos.map((l) => l.contentHash)).size).toBe(1);
    },
  ],
  ['re-encoded', (logos) => expect(new Set(logos.map((l) => l.contentHash)).size).toBe(4)],
])('a logo stored %s', (embedding, stored) => {
  it('is never a photo, and every item photo is', async () => {
    const { fixture, pages } = await read(embedding);
    const logos = pages.flatMap((p) => p.images.filter((i) => i.pixelWidth === LOGO_PX[0]));
    expect(logos).toHaveLength(4);
    stored(logos);

    const findings = readCardGrid(pages, recipe({ ignore_patterns: CARD_GRID_RECIPE.ignore_patterns }));
    const logoIds = new Set(logos.map((l) => l.id));
    expect(findings.filter((f) => f.source.kind === 'embedded' && logoIds.has(f.source.imageId))).toEqual([]);
    // Each photo found where it was drawn, in order.
    const drawnAt = findings.map((f) => {
      const id = f.source.kind === 'embedded' ? f.source.imageId : '';
      const placed = pages[f.page - 1].images.find((i) => i.id === id);
      return { page: f.page, x: Math.round(placed?.x ?? -1), y: Math.round(placed?.y ?? -1) };
    });
    expect(drawnAt).toEqual(fixture.expected.photos.map((p) => ({ page: p.page, x: p.box.x, y: p.box.y })));
  });
});
