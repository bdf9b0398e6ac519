/** The PDF import's limits per document and how its work is cut into units. */
import {
  imagesToTake,
  inRuns,
  MAX_PDF_IMAGES,
  MAX_PDF_PAGES,
  pageRanges,
  pagesToRead,
} from '../../../../lib/pipelines/pdf/limit-rules';

describe('limits per document', () => {
  it('reads every page up to the page limit, and says so past it', () => {
    expect(pagesToRead(12)).toEqual({ pages: 12, limit: null });
    expect(pagesToRead(MAX_PDF_PAGES)).toEqual({ pages: MAX_PDF_PAGES, limit: null });
    const over = pagesToRead(2500);
    expect(over.pages).toBe(MAX_PDF_PAGES);
    expect(over.limit).toBe(
      'The document has 2500 pages; only the first 2000 were read (the limit per contents list).',
    );
  });

  it('takes every photo up to the image limit, and says so past it', () => {
    expect(imagesToTake(0)).toEqual({ take: 0, limit: null });
    expect(imagesToTake(MAX_PDF_IMAGES)).toEqual({ take: MAX_PDF_IMAGES, limit: null });
    const over = imagesToTake(MAX_PDF_IMAGES + 1);
    expect(over.take).toBe(MAX_PDF_IMAGES);
    expect(over.limit).toMatch(/holds 12,?001 photos; only the first 12000 were taken/);
  });
});

describe('cutting work into units', () => {
  it('cuts pages into consecutive ranges, the last one shorter', () => {
    expect(pageRanges(120, 50)).toEqual([
      { first: 1, last: 50 },
      { first: 51, last: 100 },
      { first: 101, last: 120 },
    ]);
    expect(pageRanges(50, 50)).toEqual([{ first: 1, last: 50 }]);
    expect(pageRanges(0, 50)).toEqual([]);
  });

  it('cuts a list into runs, order kept', () => {
    expect(inRuns([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(inRuns([], 3)).toEqual([]);
  });
});
