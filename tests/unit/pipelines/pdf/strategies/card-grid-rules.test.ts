import { readCardGrid } from '../../../../../lib/pipelines/pdf/strategies/card-grid-rules';
import type { PdfPhotoFinding } from '../../../../../lib/pipelines/pdf/finding';
import { gridPage, image, page, recipe, run, stacked } from '../../../../support/pdf-layouts';

/** The findings without the fields a test does not look at. */
const brief = (findings: PdfPhotoFinding[]) =>
  findings.map((f) => ({
    page: f.page,
    id: f.source.kind === 'embedded' ? f.source.imageId : f.source.kind,
    label: f.label,
    description: f.description,
  }));

describe('readCardGrid: photos, labels and captions', () => {
  it('reads a 2 x 3 grid with labels under the photos and two-line captions, in reading order', () => {
    const grid = gridPage(1, {
      rows: 2,
      cols: 3,
      prefix: 'p',
      cell: (r, c) => [`Item ${r * 3 + c + 1}`, `Caption ${r}${c} first`, `Caption ${r}${c} second`],
    });
    const findings = readCardGrid([grid], recipe());
    expect(brief(findings)).toEqual(
      [0, 1].flatMap((r) =>
        [0, 1, 2].map((c) => ({
          page: 1,
          id: `p-r${r}c${c}`,
          label: `Item ${r * 3 + c + 1}`,
          description: `Caption ${r}${c} first Caption ${r}${c} second`,
        })),
      ),
    );
    expect(findings[0]).toEqual({
      page: 1,
      source: { kind: 'embedded', imageId: 'p-r0c0' },
      label: 'Item 1',
      description: 'Caption 00 first Caption 00 second',
      quantity: null,
      room: null,
      capturedAt: null,
    });
  });

  it('orders photos by rows even when a row is drawn unevenly and out of order', () => {
    const p = page(1, {
      images: [image('b', 250, 62, 150, 100), image('c', 50, 300, 150, 100), image('a', 50, 60, 150, 100)],
    });
    expect(brief(readCardGrid([p], recipe())).map((f) => f.id)).toEqual(['a', 'b', 'c']);
  });

  it('leaves out a logo drawn on most pages, images under min_image_px and images drawn in no box', () => {
    const logo = () => image('logo', 20, 10, 120, 40, { width: 800, height: 300 });
    const pages = [1, 2, 3].map((n) =>
      page(n, {
        images: [
          logo(),
          image(`photo${n}`, 50, 100, 150, 100),
          image(`icon${n}`, 300, 100, 20, 20, { width: 79, height: 400 }),
          image(`flat${n}`, 300, 300, 0, 20),
        ],
      }),
    );
    expect(brief(readCardGrid(pages, recipe())).map((f) => f.id)).toEqual(['photo1', 'photo2', 'photo3']);
    // The icon passes with a lower threshold; a logo on one page of three is a photo.
    const lower = readCardGrid([pages[0], page(2, {}), page(3, {})], recipe({ min_image_px: 20 }));
    expect(brief(lower).map((f) => f.id)).toEqual(['logo', 'photo1', 'icon1']);
  });

  it('takes a line drawn on the photo as its label, then the caption under the photo', () => {
    const p = page(1, {
      images: [image('a', 50, 100, 150, 100)],
      texts: [run('Lamp', 55, 185), ...stacked(50, 204, ['Brass, two bulbs', 'Living room corner'])],
    });
    expect(brief(readCardGrid([p], recipe()))).toEqual([
      { page: 1, id: 'a', label: 'Lamp', description: 'Brass, two bulbs Living room corner' },
    ]);
  });

  it('prefers lines matching label_pattern, and leaves a non-matching line under the photo to the caption', () => {
    const withUnder = page(1, {
      images: [image('a', 50, 100, 150, 100)],
      texts: [run('IMG 0042', 55, 185), ...stacked(50, 204, ['Item 7: Lamp', 'Brass'])],
    });
    const pattern = recipe({ label_pattern: '^Item \\d+' });
    expect(brief(readCardGrid([withUnder], pattern))[0]).toMatchObject({ label: 'Item 7: Lamp', description: 'Brass' });
    // Without a matching line, a line on the photo still labels it.
    const overOnly = page(1, {
      images: [image('a', 50, 100, 150, 100)],
      texts: [run('IMG 0042', 55, 185), ...stacked(50, 204, ['Brass', 'Two bulbs'])],
    });
    expect(brief(readCardGrid([overOnly], pattern))[0]).toMatchObject({
      label: 'IMG 0042',
      description: 'Brass Two bulbs',
    });
    const matchingOver = page(1, {
      images: [image('a', 50, 100, 150, 100)],
      texts: [run('Item 3: Vase', 55, 185), ...stacked(50, 204, ['Item 4: Bowl'])],
    });
    // The other matching line under it is another item's label: the caption stops there.
    expect(brief(readCardGrid([matchingOver], pattern))[0]).toMatchObject({ label: 'Item 3: Vase', description: null });
    const nothing = page(1, {
      images: [image('a', 50, 100, 150, 100)],
      texts: stacked(50, 204, ['Brass', 'Two bulbs']),
    });
    expect(brief(readCardGrid([nothing], pattern))[0]).toMatchObject({ label: null, description: 'Brass Two bulbs' });
  });

  it('takes nothing farther than description_max_gap_pt under the photo, nor outside its columns', () => {
    const p = page(1, {
      images: [image('a', 50, 100, 150, 100)],
      texts: [run('Beside', 260, 204), run('Far below', 50, 230)],
    });
    expect(brief(readCardGrid([p], recipe()))[0]).toMatchObject({ label: null, description: null });
    expect(brief(readCardGrid([p], recipe({ description_max_gap_pt: 40 })))[0]).toMatchObject({
      label: 'Far below',
      description: null,
    });
  });

  it('ends a caption at a gap wider than description_line_gap_pt', () => {
    const p = page(1, {
      images: [image('a', 50, 100, 150, 100)],
      texts: [...stacked(50, 203, ['Sofa', 'Grey fabric']), run('Unrelated note', 50, 240)],
    });
    expect(brief(readCardGrid([p], recipe()))[0]).toMatchObject({ label: 'Sofa', description: 'Grey fabric' });
    expect(brief(readCardGrid([p], recipe({ description_line_gap_pt: 20 })))[0]).toMatchObject({
      description: 'Grey fabric Unrelated note',
    });
  });

  it('reads caption lines sharing a band left to right (columns under a wide photo)', () => {
    const p = page(1, {
      images: [image('a', 50, 100, 300, 100)],
      texts: [run('Table', 50, 203), run('Oak', 200, 215), run('Seats 6', 50, 215.5)],
    });
    expect(brief(readCardGrid([p], recipe()))[0]).toMatchObject({ label: 'Table', description: 'Seats 6 Oak' });
  });

  it('stops a caption at the next photo of its column', () => {
    const p = page(1, {
      images: [image('a', 50, 100, 150, 100), image('b', 50, 260, 150, 100)],
      texts: [
        ...stacked(50, 203, ['Sofa', 'Grey fabric']),
        // Straddles the top of b: b's label, never a's caption.
        run('Lamp', 60, 255),
        run('Brass', 50, 363),
      ],
    });
    const wide = recipe({ description_max_gap_pt: 100, description_line_gap_pt: 100 });
    expect(brief(readCardGrid([p], wide))).toEqual([
      { page: 1, id: 'a', label: 'Sofa', description: 'Grey fabric' },
      { page: 1, id: 'b', label: 'Lamp', description: 'Brass' },
    ]);
    // A line under the photo that reaches into the next photo is not its label either.
    const straddling = page(1, {
      images: [image('a', 50, 100, 150, 100), image('b', 50, 210, 150, 100)],
      texts: [run('Vase', 60, 205)],
    });
    expect(brief(readCardGrid([straddling], recipe())).map((f) => f.label)).toEqual([null, 'Vase']);
  });

  it("stops a caption at another photo's label that reaches into its column", () => {
    const p = page(1, {
      images: [image('a', 50, 60, 150, 100), image('b', 210, 120, 150, 50)],
      texts: [run('Lamp', 50, 163), run('Mirror frame', 180, 173), run('Brass', 50, 186)],
    });
    const wide = recipe({ description_line_gap_pt: 30 });
    expect(brief(readCardGrid([p], wide))).toEqual([
      { page: 1, id: 'a', label: 'Lamp', description: null },
      { page: 1, id: 'b', label: 'Mirror frame', description: null },
    ]);
  });

  it('does not let a line serve two photos', () => {
    // Two photos drawn over each other: the line on both labels the first only.
    const p = page(1, {
      images: [image('a', 50, 100, 150, 100), image('b', 60, 110, 150, 100)],
      texts: [run('Shared', 70, 150)],
    });
    expect(brief(readCardGrid([p], recipe())).map((f) => f.label)).toEqual(['Shared', null]);
  });
});

describe('readCardGrid: caption positions', () => {
  it('walks up for captions above the photo, stopping at the photo above', () => {
    const p = page(1, {
      images: [image('a', 50, 100, 150, 100), image('b', 50, 290, 150, 100)],
      texts: [
        ...stacked(50, 70, ['Brass lamp', 'Two bulbs']),
        // Straddles a's bottom edge: not on a (its middle is below), not a's label (the pattern), not b's caption.
        run('Corner', 60, 196),
        ...stacked(50, 260, ['Oak table', 'Seats six']),
        run('Item 2', 50, 393),
      ],
    });
    const above = recipe({
      description_position: 'above',
      label_pattern: '^Item',
      description_max_gap_pt: 100,
      description_line_gap_pt: 6,
    });
    expect(brief(readCardGrid([p], above))).toEqual([
      { page: 1, id: 'a', label: null, description: 'Brass lamp Two bulbs' },
      { page: 1, id: 'b', label: 'Item 2', description: 'Oak table Seats six' },
    ]);
    const wideGaps = { ...above, description_line_gap_pt: 100 };
    expect(brief(readCardGrid([p], wideGaps))[1].description).toBe('Oak table Seats six');
  });

  it('stops an upward walk at another label', () => {
    const p = page(1, {
      images: [image('a', 50, 100, 150, 100), image('b', 50, 260, 150, 100)],
      texts: [run('Item 1', 50, 203), ...stacked(50, 230, ['Oak table', 'Seats six'])],
    });
    const above = recipe({ description_position: 'above', label_pattern: '^Item', description_line_gap_pt: 40 });
    expect(brief(readCardGrid([p], above))).toEqual([
      { page: 1, id: 'a', label: 'Item 1', description: null },
      { page: 1, id: 'b', label: null, description: 'Oak table Seats six' },
    ]);
  });

  it('walks right of the photo: first line beside it, the next down the block, until the next photo', () => {
    const p = page(1, {
      images: [image('a', 50, 100, 150, 100), image('b', 50, 202, 150, 100), image('c', 380, 100, 150, 100)],
      texts: [
        ...stacked(210, 150, ['Sofa', 'Grey fabric', 'Three seats']),
        // Same band, far right: beside c, not part of a's block.
        run('Rug', 540, 162),
        // Beside b: b's caption, even with gaps wide enough to join a's block.
        ...stacked(210, 204, ['Lamp', 'Brass']),
      ],
    });
    const right = recipe({ description_position: 'right', description_line_gap_pt: 40 });
    expect(brief(readCardGrid([p], right))).toEqual([
      { page: 1, id: 'a', label: null, description: 'Sofa Grey fabric Three seats' },
      { page: 1, id: 'c', label: null, description: 'Rug' },
      { page: 1, id: 'b', label: null, description: 'Lamp Brass' },
    ]);
    const tight = recipe({ description_position: 'right' });
    expect(brief(readCardGrid([p], tight)).map((f) => f.description)).toEqual([
      'Sofa Grey fabric Three seats',
      'Rug',
      'Lamp Brass',
    ]);
  });

  it('stops a side caption at a line beside the next photo of the column, and at a label', () => {
    const p = page(1, {
      images: [image('a', 50, 100, 150, 100), image('b', 50, 210, 150, 100)],
      texts: [...stacked(210, 180, ['Sofa', 'Grey', 'Item 9']), run('Item 8', 50, 313)],
    });
    const right = recipe({ description_position: 'right', label_pattern: '^Item' });
    // 'Grey' (192) sits beside b (210..310)? No: it ends at 202, before b; 'Item 9' is a label.
    expect(brief(readCardGrid([p], right))).toEqual([
      { page: 1, id: 'a', label: null, description: 'Sofa Grey' },
      { page: 1, id: 'b', label: 'Item 8', description: null },
    ]);
    const besideNext = page(1, {
      images: [image('a', 50, 100, 150, 100), image('b', 50, 210, 150, 100)],
      texts: stacked(210, 185, ['Sofa', 'Grey', 'Oak']),
    });
    expect(
      brief(readCardGrid([besideNext], recipe({ description_position: 'right' }))).map((f) => f.description),
    ).toEqual(['Sofa Grey', 'Oak']);
  });

  it('walks left of the photo', () => {
    const p = page(1, {
      images: [image('a', 300, 100, 150, 100)],
      texts: [...stacked(260, 120, ['Chair', 'Walnut']), run('Too far', 100, 150, 10, 35)],
    });
    expect(brief(readCardGrid([p], recipe({ description_position: 'left' })))[0].description).toBe('Chair Walnut');
    expect(brief(readCardGrid([page(1, { images: p.images })], recipe({ description_position: 'left' })))[0]).toEqual({
      page: 1,
      id: 'a',
      label: null,
      description: null,
    });
  });
});

describe('readCardGrid: across pages, quantities, dates, rooms', () => {
  it('gives the caption left at the end of page 1 to the first photo of page 2', () => {
    const p1 = gridPage(1, { rows: 1, cols: 2, prefix: 'one', cell: (_r, c) => [`Chair ${c + 1}`, 'Oak'] });
    p1.texts.push(...stacked(50, 700, ['2 x Sofa cushions', 'Bought 03/14/2024']));
    const p2 = gridPage(2, {
      rows: 1,
      cols: 2,
      top: 40,
      prefix: 'two',
      cell: (_r, c) => (c ? ['Rug', 'Wool'] : ['Sofa']),
    });
    const findings = readCardGrid([p1, p2], recipe());
    expect(brief(findings)).toEqual([
      { page: 1, id: 'one-r0c0', label: 'Chair 1', description: 'Oak' },
      { page: 1, id: 'one-r0c1', label: 'Chair 2', description: 'Oak' },
      { page: 2, id: 'two-r0c0', label: 'Sofa', description: '2 x Sofa cushions Bought 03/14/2024' },
      { page: 2, id: 'two-r0c1', label: 'Rug', description: 'Wool' },
    ]);
    expect(findings[2]).toMatchObject({ quantity: 2, capturedAt: '2024-03-14T00:00:00' });
  });

  it('carries no running footer that no ignore pattern caught (digits masked)', () => {
    const pages = [1, 2, 3].map((n) =>
      page(n, {
        images: [image(`p${n}`, 50, 60, 150, 100)],
        texts: [run(`Page ${n} of 3`, 50, 760), ...(n === 1 ? [run('Spare cushions', 50, 700)] : [])],
      }),
    );
    expect(brief(readCardGrid(pages, recipe())).map((f) => f.description)).toEqual([null, 'Spare cushions', null]);
  });

  it('takes a matching line among the carried lines as the label of a photo without one', () => {
    const p1 = page(1, {
      images: [image('a', 50, 60, 150, 100)],
      texts: [run('Item 1', 50, 163), ...stacked(50, 700, ['Item 2', 'Sofa cushions'])],
    });
    const p2 = page(2, { images: [image('b', 50, 40, 150, 100)], texts: [run('Blue', 50, 143)] });
    const pattern = recipe({ label_pattern: '^Item \\d+$' });
    expect(brief(readCardGrid([p1, p2], pattern))[1]).toEqual({
      page: 2,
      id: 'b',
      label: 'Item 2',
      description: 'Sofa cushions Blue',
    });
    // A photo with its own label keeps it; the carried lines join its caption.
    const labelled = page(2, { images: p2.images, texts: [run('Item 3', 50, 143)] });
    expect(brief(readCardGrid([p1, labelled], pattern))[1]).toMatchObject({
      label: 'Item 3',
      description: 'Item 2 Sofa cushions',
    });
  });

  it('takes the first of several carried lines as the label of a photo without one, when no pattern says', () => {
    const p1 = page(1, {
      images: [image('a', 50, 60, 150, 100)],
      texts: [run('Chair', 50, 163), ...stacked(50, 700, ['Floor lamp', 'Arc floor lamp', 'Bought 03/14/2024'])],
    });
    const p2 = page(2, { images: [image('b', 50, 40, 150, 100)] });
    expect(brief(readCardGrid([p1, p2], recipe()))[1]).toEqual({
      page: 2,
      id: 'b',
      label: 'Floor lamp',
      description: 'Arc floor lamp Bought 03/14/2024',
    });
  });

  it('carries nothing past a page without photos, nor between pages that do not follow each other', () => {
    const p1 = page(1, { images: [image('a', 50, 60, 150, 100)], texts: stacked(50, 700, ['Left over']) });
    const empty = page(2, { texts: [run('Notes page', 50, 60)] });
    const p3 = page(3, { images: [image('c', 50, 40, 150, 100)] });
    expect(brief(readCardGrid([p1, empty, p3], recipe())).map((f) => f.description)).toEqual([null, null]);
    expect(brief(readCardGrid([p1, p3], recipe())).map((f) => f.description)).toEqual([null, null]);
  });

  it('carries no header line above the first photo, no line on a photo, and no line with a photo below it', () => {
    const p1 = page(1, {
      images: [image('a', 50, 100, 150, 100), image('b', 300, 100, 150, 100), image('c', 300, 400, 150, 100)],
      texts: [run('Inventory', 50, 40), run('Lamp', 55, 150), run('Spare', 60, 150), run('Stray', 300, 300)],
    });
    const p2 = page(2, { images: [image('d', 50, 40, 150, 100)] });
    // 'Spare' sits on a next to 'Lamp' (a wide word gap in one band): on the photo, so never carried.
    expect(brief(readCardGrid([p1, p2], recipe()))[3]).toMatchObject({ id: 'd', description: null });
  });

  it("reads the quantity from the caption's leading 'N x', else the label's", () => {
    const p = gridPage(1, {
      rows: 1,
      cols: 3,
      prefix: 'q',
      cell: (_r, c) => [['Chairs', '4 x Dining chairs'], ['2 x Stools'], ['Table', 'Seats 6']][c],
    });
    expect(readCardGrid([p], recipe()).map((f) => f.quantity)).toEqual([4, 2, null]);
  });

  it('normalizes the first printed date of the caption, else of the label', () => {
    const p = gridPage(1, {
      rows: 1,
      cols: 3,
      prefix: 'd',
      cell: (_r, c) =>
        [
          ['Lamp', 'Brass', 'Taken 3/4/2024 2:05 PM'],
          ['Photo 2024-01-02 09:30', 'Vase'],
          ['Chair', 'Oak'],
        ][c],
    });
    expect(readCardGrid([p], recipe()).map((f) => f.capturedAt)).toEqual([
      '2024-03-04T14:05:00',
      '2024-01-02T09:30:00',
      null,
    ]);
  });

  it('drops lines matching an ignore pattern before reading labels and captions', () => {
    const p = page(1, {
      images: [image('a', 50, 100, 150, 100)],
      texts: [run('ACME Restoration', 50, 40), ...stacked(50, 203, ['Sofa', 'Grey', 'Page 1 of 3'])],
    });
    p.texts.push(...stacked(50, 700, ['Confidential']));
    const p2 = page(2, { images: [image('b', 50, 100, 150, 100)], texts: [run('Page 2 of 3', 50, 203)] });
    expect(brief(readCardGrid([p, p2], recipe()))).toEqual([
      { page: 1, id: 'a', label: 'Sofa', description: 'Grey Page 1 of 3' },
      { page: 2, id: 'b', label: 'Page 2 of 3', description: 'Confidential' },
    ]);
    const ignoring = recipe({ ignore_patterns: ['^Page \\d+ of \\d+$', 'Confidential', '(unclosed'] });
    expect(brief(readCardGrid([p, p2], ignoring))).toEqual([
      { page: 1, id: 'a', label: 'Sofa', description: 'Grey' },
      { page: 2, id: 'b', label: null, description: null },
    ]);
  });

  it('files each photo under the last room heading above it, carried across pages', () => {
    const heading = (name: string, y: number) => run(`Room: ${name}`, 50, y, 14);
    const p1 = gridPage(1, {
      rows: 2,
      cols: 2,
      top: 80,
      cellHeight: 200,
      prefix: 'r1',
      cell: (r, c) => [`Item ${r}${c}`],
      extraTexts: [heading('Kitchen', 50), heading('Dining room', 250)],
    });
    const p2 = gridPage(2, { rows: 1, cols: 1, prefix: 'r2', cell: () => ['Item'] });
    const p3 = gridPage(3, {
      rows: 1,
      cols: 1,
      top: 100,
      prefix: 'r3',
      cell: () => ['Item'],
      extraTexts: [heading('Garage', 60)],
    });
    const rooms = recipe({ room_pattern: '^Room: (.+)$' });
    const findings = readCardGrid([p1, p2, p3], rooms);
    expect(findings.map((f) => [f.source.kind === 'embedded' && f.source.imageId, f.room, f.label])).toEqual([
      ['r1-r0c0', 'Kitchen', 'Item 00'],
      ['r1-r0c1', 'Kitchen', 'Item 01'],
      ['r1-r1c0', 'Dining room', 'Item 10'],
      ['r1-r1c1', 'Dining room', 'Item 11'],
      ['r2-r0c0', 'Dining room', 'Item'],
      ['r3-r0c0', 'Garage', 'Item'],
    ]);
    // Without a group the whole match names the room; a pattern that does not compile names none.
    expect(readCardGrid([p1], recipe({ room_pattern: 'Kitchen' }))[0].room).toBe('Kitchen');
    expect(readCardGrid([p1], recipe({ room_pattern: '(' }))[0].room).toBeNull();
    // Without a room pattern the heading is just a line (here too far from any photo to matter).
    expect(readCardGrid([p1], recipe())[0].room).toBeNull();
  });

  it('keeps a room line out of labels and captions, and a room named by nothing is no heading', () => {
    const p = page(1, {
      images: [image('a', 50, 100, 150, 100)],
      texts: [run('Room: Bath', 50, 40), ...stacked(50, 203, ['Room: Attic', 'Towels']), run('Room: ', 300, 40)],
    });
    const rooms = recipe({ room_pattern: '^Room: ?(.*)$' });
    expect(readCardGrid([p], rooms)[0]).toMatchObject({ room: 'Bath', label: 'Towels', description: null });
  });

  it('finds nothing in pages without photos', () => {
    expect(readCardGrid([page(1, { texts: [run('Cover', 50, 50)] })], recipe())).toEqual([]);
    expect(readCardGrid([], recipe())).toEqual([]);
  });
});

describe('readCardGrid: portrait photos centred in landscape cards', () => {
  /**
   * Two rows of two 250 x 190 pt cards; each card's photo is centred in it (portrait 120 x 160 pt, or
   * landscape 230 x 160 pt), its label 6 pt under the photo and its caption under that, both printed from the
   * card's left edge (left of a portrait photo).
   */
  function cardsPage(n: number, portrait: (r: number, c: number) => boolean, label: (r: number, c: number) => string) {
    const texts = [];
    const images = [];
    for (const r of [0, 1]) {
      for (const c of [0, 1]) {
        const cardX = 40 + c * 270;
        const top = 80 + r * 260;
        const [w, h] = portrait(r, c) ? [120, 160] : [230, 160];
        images.push(image(`${n}-r${r}c${c}`, cardX + (250 - w) / 2, top, w, h, { width: w * 4, height: h * 4 }));
        texts.push(run(label(r, c), cardX, top + h + 6, 10), run(`3 x ${label(r, c)} things`, cardX, top + h + 19, 9));
      }
    }
    return page(n, { texts, images });
  }

  it('labels and describes each portrait photo from its card, and carries no caption to the next page', () => {
    const label = (n: number) => (r: number, c: number) =>
      `Item ${String((n - 1) * 4 + r * 2 + c + 1).padStart(4, '0')}`;
    const pages = [1, 2].map((n) => cardsPage(n, (r, c) => (r + c + n) % 2 === 0, label(n)));
    const findings = readCardGrid(pages, recipe());
    expect(findings.map((f) => [f.label, f.description, f.quantity])).toEqual(
      [1, 2].flatMap((n) =>
        [0, 1].flatMap((r) => [0, 1].map((c) => [label(n)(r, c), `3 x ${label(n)(r, c)} things`, 3])),
      ),
    );
  });

  it('gives a line starting right of the photo beside to the portrait photo of its card', () => {
    // A portrait photo right of a landscape one: its label starts in the gap after the landscape photo.
    const p = page(1, {
      images: [
        image('a', 40, 80, 230, 160, { width: 920, height: 640 }),
        image('b', 375, 80, 120, 160, { width: 480, height: 640 }),
      ],
      texts: [run('Item A', 40, 246), run('Item B', 310, 246)],
    });
    expect(readCardGrid([p], recipe()).map((f) => f.label)).toEqual(['Item A', 'Item B']);
  });
});
