/**
 * Generated vendor lists (pdf-lib), read with the PDF reader and the recipe
 * strategies: every photo keeps the label, caption, quantity and printed date
 * its list gives it. Portrait photos centred in landscape cards, whose label
 * and caption start at the card's left edge (left of the photo), in a card
 * grid and in a list with a cover and an appendix; and a header-run list
 * whose headings hold both the label and the description.
 */
import type { PdfPageLayout } from '../../../../../lib/pdf/layout';
import { openPdf } from '../../../../../lib/pdf/reader';
import { readCardGrid } from '../../../../../lib/pipelines/pdf/strategies/card-grid-rules';
import type { PdfPhotoFinding } from '../../../../../lib/pipelines/pdf/finding';
import { readHeaderRuns } from '../../../../../lib/pipelines/pdf/strategies/header-runs-rules';
import type { PdfFixture } from '../../../../support/pdf-drawing';
import { CARD_GRID_RECIPE, cardGridList, coverAndAppendixList, headerRunsList } from '../../../../support/pdf-fixtures';
import { recipe } from '../../../../support/pdf-layouts';

async function pagesOf(bytes: Uint8Array, [first, last]: readonly [number, number]): Promise<PdfPageLayout[]> {
  const reader = await openPdf(bytes);
  try {
    const pages: PdfPageLayout[] = [];
    for (let page = first; page <= last; page++) pages.push(await reader.pageLayout(page));
    return pages;
  } finally {
    await reader.close();
  }
}

/** What each photo was printed with, in document order, as a finding states it. */
function printed(fixture: PdfFixture) {
  return fixture.expected.photos.map((photo) => {
    const group = fixture.expected.groups.find((g) => g.photos.includes(photo.index));
    return {
      page: photo.page,
      label: group?.label ?? null,
      description: group?.description ?? null,
      quantity: group?.quantity ?? null,
      capturedAt: group?.capturedAt ?? null,
    };
  });
}

const stated = (findings: PdfPhotoFinding[]) =>
  findings.map((f) => ({
    page: f.page,
    label: f.label,
    description: f.description,
    quantity: f.quantity,
    capturedAt: f.capturedAt,
  }));

const cardRecipe = recipe({ ignore_patterns: CARD_GRID_RECIPE.ignore_patterns });

describe('portrait photos in landscape cards', () => {
  it('take the label and caption printed from their card left edge, and no caption moves to another page', async () => {
    const fixture = await cardGridList({ pages: 4, portraitEvery: 3 });
    const portraits = fixture.expected.photos.filter((p) => p.pixelHeight > p.pixelWidth);
    expect(portraits.length).toBeGreaterThanOrEqual(6);
    // As the checks' lists print them: the card's text starts left of the portrait photo.
    for (const p of portraits) expect(p.box.x).toBeGreaterThan(40);

    const findings = readCardGrid(await pagesOf(fixture.bytes, fixture.expected.inventoryPages), cardRecipe);
    expect(stated(findings)).toEqual(printed(fixture));
  });

  it('are read the same in a list with a cover page and an appendix', async () => {
    const fixture = await coverAndAppendixList({ portraitEvery: 2 });
    expect(fixture.expected.photos.filter((p) => p.pixelHeight > p.pixelWidth).length).toBeGreaterThanOrEqual(6);
    const findings = readCardGrid(await pagesOf(fixture.bytes, fixture.expected.inventoryPages), cardRecipe);
    expect(stated(findings)).toEqual(printed(fixture));
  });
});

describe('a header-run list whose headings hold label and description', () => {
  it('splits each heading by the label pattern: "Item 1 - Refrigerator" is label "Item 1", description "Refrigerator"', async () => {
    const fixture = await headerRunsList();
    const pages = await pagesOf(fixture.bytes, fixture.expected.inventoryPages);
    const findings = readHeaderRuns(pages, recipe({ strategy: 'header_runs', label_pattern: '^Item \\d+ - ' }));
    const expected = printed(fixture)
      .filter((p) => p.label !== null)
      .map((p) => {
        const [, label, description] = /^(Item \d+) - (.+)$/.exec(p.label as string) ?? [];
        return { ...p, label, description };
      });
    expect(stated(findings)).toEqual(expected);

    // Without a pattern the whole heading stays the label.
    const whole = readHeaderRuns(pages, recipe({ strategy: 'header_runs' }));
    expect(whole.map((f) => [f.label, f.description])).toEqual(
      printed(fixture)
        .filter((p) => p.label !== null)
        .map((p) => [p.label, null]),
    );
  });
});
