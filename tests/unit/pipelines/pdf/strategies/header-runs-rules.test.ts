import type { PdfPhotoFinding } from '../../../../../lib/pipelines/pdf/finding';
import {
  HEADING_HEIGHT_RATIO,
  readHeaderRuns,
  splitHeading,
} from '../../../../../lib/pipelines/pdf/strategies/header-runs-rules';
import { image, page, recipe, run, stacked } from '../../../../support/pdf-layouts';

const brief = (findings: PdfPhotoFinding[]) =>
  findings.map((f) => [f.page, f.source.kind === 'embedded' ? f.source.imageId : f.source.kind, f.label]);

/** A heading in 14 pt type (body text is 10 pt). */
const heading = (text: string, y: number, x = 50) => run(text, x, y, 14);

/** Two pages: items carry across the page break; one photo comes before any heading. */
function carryingDocument() {
  const p1 = page(1, {
    images: [
      image('pre', 50, 60, 150, 100),
      image('a1', 50, 240, 150, 100),
      image('a2', 220, 240, 150, 100),
      image('b1', 50, 440, 150, 100),
      image('b2', 50, 600, 150, 100),
    ],
    texts: [
      heading('Item 1: Sofa', 200),
      run('Grey fabric, 3 seats', 50, 218),
      heading('Item 2: Lamp', 400),
      run('Qty: 2', 400, 400),
      run('Page 1', 50, 760),
    ],
  });
  const p2 = page(2, {
    images: [image('b3', 50, 60, 150, 100), image('c1', 50, 340, 150, 100)],
    texts: [heading('Item 3: Rug', 300), run('Wool, bought 03/14/2024 2:30 PM', 50, 318)],
  });
  return [p1, p2];
}

describe('readHeaderRuns', () => {
  const ignorePages = { ignore_patterns: ['^Page \\d+$'] };

  it('gives each heading the run of photos below it, across pages, and drops photos before the first heading', () => {
    const findings = readHeaderRuns(carryingDocument(), recipe({ label_pattern: '^Item \\d+:', ...ignorePages }));
    // The label pattern's match is the label; the rest of the heading starts the description.
    expect(brief(findings)).toEqual([
      [1, 'a1', 'Item 1'],
      [1, 'a2', 'Item 1'],
      [1, 'b1', 'Item 2'],
      [1, 'b2', 'Item 2'],
      [2, 'b3', 'Item 2'],
      [2, 'c1', 'Item 3'],
    ]);
    expect(findings[0]).toEqual({
      page: 1,
      source: { kind: 'embedded', imageId: 'a1' },
      label: 'Item 1',
      description: 'Sofa Grey fabric, 3 seats',
      quantity: null,
      room: null,
      capturedAt: null,
    });
    // A line in the heading's band counts as text between the heading and its photos.
    expect(findings[2].description).toBe('Lamp Qty: 2');
    expect(findings[5]).toMatchObject({
      description: 'Rug Wool, bought 03/14/2024 2:30 PM',
      capturedAt: '2024-03-14T14:30:00',
    });
  });

  it.each([
    ['Item 1 – Sofa, 3-seat', '^Item \\d+', { label: 'Item 1', rest: 'Sofa, 3-seat' }],
    ['C-0023: Lamp', '^C-\\d+', { label: 'C-0023', rest: 'Lamp' }],
    ['Item 0018', '^Item \\d+', { label: 'Item 0018', rest: null }],
    ['Sofa (Item 4)', 'Item \\d+', { label: 'Sofa (Item 4)', rest: null }],
    ['Item 5 – Chair', null, { label: 'Item 5 – Chair', rest: null }],
  ])('splits the heading %j by the label pattern %j', (text, source, expected) => {
    expect(splitHeading(text, source === null ? null : new RegExp(source))).toEqual(expected);
  });

  it(`without a label_pattern, takes lines ${HEADING_HEIGHT_RATIO}x taller than the body text as headings`, () => {
    const findings = readHeaderRuns(carryingDocument(), recipe(ignorePages));
    expect(brief(findings).map((f) => f[2])).toEqual([
      'Item 1: Sofa',
      'Item 1: Sofa',
      'Item 2: Lamp',
      'Item 2: Lamp',
      'Item 2: Lamp',
      'Item 3: Rug',
    ]);
    // A tall line with no letter (a page number in large type) heads nothing.
    const numbered = page(1, {
      images: [image('a', 50, 100, 150, 100)],
      texts: [run('12', 50, 60, 14), run('note', 50, 300), run('note', 50, 320)],
    });
    expect(readHeaderRuns([numbered], recipe())).toEqual([]);
  });

  it('finds nothing in a document set in one size, in a document without text, or without photos', () => {
    const flat = page(1, {
      images: [image('a', 50, 100, 150, 100)],
      texts: [run('Item 1', 50, 60), run('Oak', 50, 72)],
    });
    expect(readHeaderRuns([flat], recipe())).toEqual([]);
    expect(readHeaderRuns([page(1, { images: [image('a', 50, 100, 150, 100)] })], recipe())).toEqual([]);
    expect(readHeaderRuns([page(1, { texts: [heading('Item 1', 60), run('Oak', 50, 80)] })], recipe())).toEqual([]);
    expect(readHeaderRuns([], recipe())).toEqual([]);
  });

  it('reads the text between a heading at the end of a page and its photos on the next', () => {
    const p1 = page(1, {
      images: [image('x', 50, 60, 150, 100)],
      texts: [heading('Item 1: Desk', 40), heading('2 x Office chairs', 700), run('Black mesh', 50, 718)],
    });
    const p2 = page(2, {
      images: [image('y', 50, 80, 150, 100)],
      texts: [run('Purchased 2023-11-02', 50, 40), run('Under y', 50, 190)],
    });
    const findings = readHeaderRuns([p1, p2], recipe());
    expect(findings.map((f) => [f.label, f.description, f.quantity, f.capturedAt])).toEqual([
      ['Item 1: Desk', null, null, null],
      ['2 x Office chairs', 'Black mesh Purchased 2023-11-02', 2, '2023-11-02T00:00:00'],
    ]);
  });

  it('reads the lines right under a heading whose photos sit beside it', () => {
    const p = page(1, {
      images: [image('a', 300, 100, 150, 100), image('b', 300, 210, 150, 100)],
      texts: [
        heading('3 x Bar stools', 100),
        ...stacked(50, 118, ['Walnut seat', 'Steel legs']),
        run('Unrelated', 50, 200),
        heading('Item 2', 400),
        run('Far under', 50, 500),
      ],
    });
    const findings = readHeaderRuns([p], recipe());
    expect(findings.map((f) => [f.label, f.description, f.quantity])).toEqual([
      ['3 x Bar stools', 'Walnut seat Steel legs', 3],
      ['3 x Bar stools', 'Walnut seat Steel legs', 3],
    ]);
  });

  it('ends the text under a heading at a heading or a photo of its columns', () => {
    const p = page(1, {
      images: [image('a', 50, 130, 150, 100), image('b', 50, 330, 150, 100)],
      texts: [
        heading('Chest', 100),
        // Straddles a's top: past the photo.
        run('Drawers', 50, 125),
        heading('Bench', 300),
      ],
    });
    const wide = recipe({
      label_pattern: '^(Chest|Bench)$',
      description_max_gap_pt: 200,
      description_line_gap_pt: 200,
    });
    expect(readHeaderRuns([p], wide).map((f) => [f.label, f.description])).toEqual([
      ['Chest', null],
      ['Bench', null],
    ]);
    const stacking = page(1, {
      images: [image('a', 300, 100, 150, 30)],
      texts: [heading('Chest', 100), heading('Bench', 120)],
    });
    expect(readHeaderRuns([stacking], wide).map((f) => [f.label, f.description])).toEqual([['Chest', null]]);
  });

  it('files each run under the room in force at its heading; a room heading closes the open item', () => {
    const p1 = page(1, {
      images: [image('k1', 50, 120, 150, 100), image('g0', 50, 420, 150, 100), image('g1', 50, 620, 150, 100)],
      texts: [
        run('Room: Kitchen', 50, 40, 18),
        heading('Toaster', 90),
        run('Room: Garage', 50, 380, 18),
        heading('Mower', 580),
      ],
    });
    const p2 = page(2, { images: [image('g2', 50, 120, 150, 100)], texts: [heading('Drill', 90)] });
    const rooms = recipe({ room_pattern: '^Room: (.+)$', label_pattern: '^[A-Z][a-z]+$' });
    const findings = readHeaderRuns([p1, p2], rooms);
    expect(findings.map((f) => [f.source.kind === 'embedded' && f.source.imageId, f.label, f.room])).toEqual([
      ['k1', 'Toaster', 'Kitchen'],
      ['g1', 'Mower', 'Garage'],
      ['g2', 'Drill', 'Garage'],
    ]);
  });
});
