/** Covers: lib/pipelines/pdf/report/assessment-rules.ts (when a contents-list read is reported to support). */
import {
  assessExtraction,
  attachmentAllowed,
  type ExtractionSummary,
} from '../../../../../lib/pipelines/pdf/report/assessment-rules';

const good: ExtractionSummary = {
  photos: 120,
  pagesRead: 20,
  wholePageImages: 0,
  hasTextLayer: true,
  unlabeledPhotos: 3,
};

describe('assessExtraction', () => {
  it('passes a good read', () => {
    expect(assessExtraction(good)).toBeNull();
  });

  it('reports a read that raised, quoting the error, even with photos found', () => {
    expect(assessExtraction({ ...good, error: 'Invalid XRef stream\n at page 7' })).toEqual({
      reason: 'The read stopped on an error after 20 pages and 120 photos: Invalid XRef stream at page 7',
    });
    expect(assessExtraction({ ...good, photos: 0, pagesRead: 1, error: '  ' })?.reason).toBe(
      'The read stopped on an error after 1 page and 0 photos: unknown error',
    );
  });

  it('cuts a long error', () => {
    const reason = assessExtraction({ ...good, error: 'x'.repeat(2000) })?.reason as string;
    expect(reason).toContain(`${'x'.repeat(500)}…`);
    expect(reason).not.toContain('x'.repeat(501));
  });

  it('reports a read that found no photos', () => {
    expect(assessExtraction({ ...good, photos: 0, unlabeledPhotos: 0 })).toEqual({
      reason: 'No photos were found in 20 pages read.',
    });
  });

  it('reports every page imported whole although the document has a text layer', () => {
    const whole = { ...good, photos: 20, wholePageImages: 20, unlabeledPhotos: 20 };
    expect(assessExtraction(whole)?.reason).toMatch(/^Every page was imported as a whole-page image \(20 pages\)/);
    // A scan (no text layer) is expected to come in as page images.
    expect(assessExtraction({ ...whole, hasTextLayer: false, unlabeledPhotos: 0 })).toBeNull();
    // Some photos cut out: the recipe did find photos.
    expect(assessExtraction({ ...whole, photos: 21, unlabeledPhotos: 0 })).toBeNull();
  });

  it('reports photos left out because their images could not be read, with the pages', () => {
    expect(assessExtraction({ ...good, skipped: [{ page: 3 }] })).toEqual({
      reason: '1 photo could not be read and was left out (page 3).',
    });
    const many = [7, 2, 7, 9].map((page) => ({ page }));
    expect(assessExtraction({ ...good, photos: 0, skipped: many })?.reason).toBe(
      '4 photos could not be read and were left out (pages 2, 7, 9).',
    );
    expect(assessExtraction({ ...good, skipped: [] })).toBeNull();
  });

  it('reports more than 80% of photos with neither label nor description', () => {
    expect(assessExtraction({ ...good, photos: 10, unlabeledPhotos: 9 })).toEqual({
      reason: 'Most photos (9 of 10) have neither a label nor a description.',
    });
    expect(assessExtraction({ ...good, photos: 10, unlabeledPhotos: 8 })).toBeNull();
    expect(assessExtraction({ ...good, photos: 1, unlabeledPhotos: 1 })?.reason).toBe(
      'Most photos (1 of 1) have neither a label nor a description.',
    );
  });
});

describe('attachmentAllowed', () => {
  it('allows a PDF up to the limit in MiB', () => {
    expect(attachmentAllowed(20 * 1024 * 1024, 20)).toBe(true);
    expect(attachmentAllowed(20 * 1024 * 1024 + 1, 20)).toBe(false);
    expect(attachmentAllowed(1, 0)).toBe(false);
  });
});
