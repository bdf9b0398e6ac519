import {
  MIN_REGION_PT,
  pageImageFindings,
  readMarkedBoxes,
  wholePageFinding,
} from '../../../../../lib/pipelines/pdf/strategies/page-image-rules';
import {
  markedBox,
  PAGE_IMAGE_ANSWER_JSON_SCHEMA,
  PAGE_IMAGE_OUTPUT_CONTRACT,
} from '../../../../../lib/pipelines/pdf/strategies/page-image-schemas';

const frame = { page: 4, width: 600, height: 800 };
const mark = (
  x: number,
  y: number,
  width: number,
  height: number,
  label: string | null = null,
  description: string | null = null,
) => ({
  x,
  y,
  width,
  height,
  label,
  description,
});

describe('readMarkedBoxes', () => {
  it('reads {"photos": [...]} and a bare list, each box as the schema has it', () => {
    const answer = { photos: [mark(0.1, 0.2, 0.3, 0.25, 'Lamp', 'Brass')] };
    expect(readMarkedBoxes(answer)).toEqual([mark(0.1, 0.2, 0.3, 0.25, 'Lamp', 'Brass')]);
    expect(readMarkedBoxes([mark(0.1, 0.2, 0.3, 0.25)])).toEqual([mark(0.1, 0.2, 0.3, 0.25)]);
    expect(readMarkedBoxes({ photos: [] })).toEqual([]);
  });

  it('reads boxes leniently: numbers as text, w/h, a nested box, [x, y, w, h], clipped to the page', () => {
    const answer = {
      photos: [
        { x: '0.1', y: '0.2', w: 0.3, h: 0.4, label: '  Oak   table ', description: '' },
        { box: { x: 0.5, y: 0.5, width: 0.2, height: 0.2 }, label: 7 },
        [0.9, 0.9, 0.3, 0.3],
      ],
    };
    const boxes = readMarkedBoxes(answer);
    expect(boxes).toHaveLength(3);
    expect(boxes?.[0]).toEqual(mark(0.1, 0.2, 0.3, 0.4, 'Oak table', null));
    expect(boxes?.[1]).toEqual(mark(0.5, 0.5, 0.2, 0.2));
    expect(boxes?.[2]).toMatchObject({ x: 0.9, y: 0.9, width: expect.closeTo(0.1, 9), label: null });
  });

  it('leaves out boxes it cannot read and cuts long texts', () => {
    const long = 'x'.repeat(1500);
    const boxes = readMarkedBoxes({
      photos: [
        null,
        3,
        { x: 'a', y: 0, width: 1, height: 1 },
        { x: 2, y: 2, width: 1, height: 1 },
        mark(0, 0, 1, 1, long, long),
      ],
    });
    expect(boxes).toHaveLength(1);
    expect(boxes?.[0].label).toHaveLength(200);
    expect(boxes?.[0].description).toHaveLength(1000);
  });

  it('is null when the answer is no list of boxes (the page is kept whole)', () => {
    for (const answer of [null, undefined, 'photos', 12, {}, { photos: 'none' }, { items: [] }]) {
      expect(readMarkedBoxes(answer)).toBeNull();
    }
  });
});

describe('pageImageFindings', () => {
  it('turns the marked boxes into regions of the page in points, in reading order', () => {
    const findings = pageImageFindings(frame, [
      mark(0.5, 0.1, 0.4, 0.2, 'Vase', 'Blue glass'),
      mark(0.05, 0.11, 0.4, 0.2, '2 x Candles', 'Bought 03/14/2024'),
      mark(0.05, 0.5, 0.9, 0.3, null, null),
    ]);
    expect(findings).toEqual([
      {
        page: 4,
        source: { kind: 'region', box: { x: 30, y: 88, width: 240, height: 160 } },
        label: '2 x Candles',
        description: 'Bought 03/14/2024',
        quantity: 2,
        room: null,
        capturedAt: '2024-03-14T00:00:00',
      },
      {
        page: 4,
        source: { kind: 'region', box: { x: 300, y: 80, width: 240, height: 160 } },
        label: 'Vase',
        description: 'Blue glass',
        quantity: null,
        room: null,
        capturedAt: null,
      },
      {
        page: 4,
        source: { kind: 'region', box: { x: 30, y: 400, width: 540, height: 240 } },
        label: null,
        description: null,
        quantity: null,
        room: null,
        capturedAt: null,
      },
    ]);
  });

  it('reads quantity and date from the description first, then the label', () => {
    const [finding] = pageImageFindings(frame, [mark(0, 0, 0.5, 0.5, '3 x Mugs 2024-01-05', '4 x Mugs')]);
    expect(finding).toMatchObject({ quantity: 4, capturedAt: '2024-01-05T00:00:00' });
  });

  it('clamps boxes to the page and drops specks and boxes marked twice', () => {
    const speck = MIN_REGION_PT / 600 - 0.001;
    const findings = pageImageFindings(frame, [
      mark(0.8, 0.9, 0.5, 0.5),
      mark(-0.1, -0.1, 0.3, 0.3),
      mark(0.5, 0.5, speck, 0.2),
      mark(0.5, 0.5, 0.2, MIN_REGION_PT / 800 - 0.001),
      mark(0.3, 0.3, 0.2, 0.2),
      mark(0.301, 0.3, 0.2, 0.2),
      mark(0.4, 0.3, 0.2, 0.2),
    ]);
    expect(findings.map((f) => f.source)).toEqual([
      { kind: 'region', box: { x: 0, y: 0, width: 120, height: 160 } },
      { kind: 'region', box: { x: 180, y: 240, width: 120, height: 160 } },
      { kind: 'region', box: { x: 240, y: 240, width: 120, height: 160 } },
      { kind: 'region', box: { x: 480, y: 720, width: 120, height: 80 } },
    ]);
  });

  it('finds nothing on a page where nothing was marked (the page is dropped)', () => {
    expect(pageImageFindings(frame, [])).toEqual([]);
  });
});

describe('wholePageFinding', () => {
  it('keeps the whole page as one photo with nothing read', () => {
    expect(wholePageFinding(frame)).toEqual({
      page: 4,
      source: { kind: 'page' },
      label: null,
      description: null,
      quantity: null,
      room: null,
      capturedAt: null,
    });
  });
});

describe('page image answer schema', () => {
  it('accepts what the rules read and asks for every field (strict structured output)', () => {
    expect(markedBox.safeParse(mark(0.1, 0.2, 0.3, 0.4, 'Lamp', null)).success).toBe(true);
    expect(markedBox.safeParse(mark(0.1, 0.2, 0, 0.4)).success).toBe(false);
    const schema = PAGE_IMAGE_ANSWER_JSON_SCHEMA.schema as {
      required: string[];
      properties: { photos: { items: { required: string[] } } };
    };
    expect(schema.required).toEqual(['photos']);
    expect(schema.properties.photos.items.required.sort()).toEqual(
      ['description', 'height', 'label', 'width', 'x', 'y'].sort(),
    );
  });

  it('names every field of the schema in the prompt contract', () => {
    for (const field of ['"photos"', 'x, y, width, height', 'label', 'description']) {
      expect(PAGE_IMAGE_OUTPUT_CONTRACT).toContain(field);
    }
  });
});
