/** Reading the vision model's items leniently, and the item drafts a group's answer becomes. */
import {
  draftFromModel,
  readModelItem,
  sourceNoteLine,
  unidentifiedItem,
} from '../../../../lib/pipelines/photo/answer-rules';

describe("reading the model's items", () => {
  it('coerces numbers in strings, clamps confidence and drops items without a name', () => {
    expect(
      readModelItem({ name: ' Lamp ', quantity: '2', estimated_price: '$1,200.50', confidence: 1.7 }),
    ).toMatchObject({ name: 'Lamp', quantity: 2, estimated_price: 1200.5, confidence: 1 });
    expect(readModelItem({ name: 'Chair', quantity: 0, confidence: 'high' })).toMatchObject({
      quantity: 1,
      confidence: 0.5,
      brand: null,
    });
    expect(readModelItem({ quantity: 1 })).toBeNull();
    expect(readModelItem('Lamp')).toBeNull();
  });

  it("a user's quantity overrides the model's, and a source note becomes a notes line", () => {
    const item = readModelItem({ name: 'Bowl', quantity: 1, confidence: 0.8, notes: 'chipped rim' })!;
    const draft = draftFromModel(item, {
      group_index: 4,
      photos: [{ filename: 'a.jpg', key: 'k' }],
      notes: ['Blue bowl set'],
      quantity: 6,
    });
    expect(draft).toMatchObject({
      name: 'Bowl',
      quantity: 6,
      notes: 'chipped rim\nFrom the source PDF: Blue bowl set',
      source_group_index: 4,
    });
    expect(sourceNoteLine([])).toBeNull();
  });
});

describe('lenient reading, field by field', () => {
  it('reads numbers where the model sent text, and text where it sent numbers', () => {
    expect(
      readModelItem({ name: 1984, quantity: ' 3 ', model: 55, confidence: '0.7', estimated_price: ' 1 299 ' }),
    ).toMatchObject({ name: '1984', quantity: 3, model: '55', confidence: 0.7, estimated_price: 1299 });
  });

  it('rounds the quantity, caps it at 10,000 and falls back to 1 below one or when unreadable', () => {
    expect(readModelItem({ name: 'Cup', quantity: 2.6 })?.quantity).toBe(3);
    expect(readModelItem({ name: 'Cup', quantity: 1e9 })?.quantity).toBe(10_000);
    expect(readModelItem({ name: 'Cup', quantity: -2 })?.quantity).toBe(1);
    expect(readModelItem({ name: 'Cup', quantity: 'a few' })?.quantity).toBe(1);
    expect(readModelItem({ name: 'Cup', quantity: [4] })?.quantity).toBe(1);
    expect(readModelItem({ name: 'Cup' })?.quantity).toBe(1);
  });

  it('drops a negative or unreadable price and clamps confidence to [0, 1]', () => {
    expect(readModelItem({ name: 'Cup', estimated_price: -5 })?.estimated_price).toBeNull();
    expect(readModelItem({ name: 'Cup', estimated_price: 'unknown' })?.estimated_price).toBeNull();
    expect(readModelItem({ name: 'Cup', estimated_price: { usd: 5 } })?.estimated_price).toBeNull();
    expect(readModelItem({ name: 'Cup', estimated_price: 0 })?.estimated_price).toBe(0);
    expect(readModelItem({ name: 'Cup', confidence: -0.3 })?.confidence).toBe(0);
  });

  it('trims text, turns blank or non-text fields into null and cuts long ones at their limits', () => {
    const item = readModelItem({
      name: 'n'.repeat(250),
      brand: '   ',
      sku: true,
      condition: { worn: true },
      age: 'a'.repeat(80),
      notes: ` ${'x'.repeat(1200)} `,
    });
    expect(item).toMatchObject({ brand: null, sku: null, condition: null, serial: null });
    expect(item?.name).toHaveLength(200);
    expect(item?.age).toHaveLength(60);
    expect(item?.notes).toBe('x'.repeat(1000));
  });

  it('skips an item whose name is blank or missing', () => {
    expect(readModelItem({ name: '   ', quantity: 2 })).toBeNull();
    expect(readModelItem({ name: null })).toBeNull();
    expect(readModelItem(null)).toBeNull();
    expect(readModelItem(7)).toBeNull();
  });
});

describe('the draft of an item', () => {
  const group = { group_index: 2, photos: [{ filename: 'orig_0002.jpg', key: 'k/2' }], notes: [], quantity: null };

  it("keeps the model's count when the user gave none, and notes only what there is", () => {
    const item = readModelItem({ name: 'Lamp', quantity: 2, confidence: 0.9, brand: 'IKEA' })!;
    expect(draftFromModel(item, group)).toEqual({
      ...item,
      quantity: 2,
      notes: null,
      source_group_index: 2,
      source_label: null,
      photos: group.photos,
    });
    expect(draftFromModel(item, { ...group, notes: ['2 lamps, brass'] }).notes).toBe(
      'From the source PDF: 2 lamps, brass',
    );
  });

  it("carries the contents list's printed labels to the item, each once", () => {
    const item = readModelItem({ name: 'Watering can', quantity: 3, confidence: 0.9 })!;
    expect(draftFromModel(item, { ...group, labels: ['Item 0018'] }).source_label).toBe('Item 0018');
    expect(draftFromModel(item, { ...group, labels: ['C-0023', 'C-0024', 'c-0023'] }).source_label).toBe(
      'C-0023; C-0024',
    );
    // A plan stored before labels were kept has none.
    expect(draftFromModel(item, group).source_label).toBeNull();
  });

  it('joins several source notes on one line', () => {
    expect(sourceNoteLine(['Red chair', 'Oak table'])).toBe('From the source PDF: Red chair; Oak table');
  });
});

describe('a merged group or segment the model found nothing in', () => {
  it('still yields one item, named as unidentified, with zero confidence and nothing else known', () => {
    expect(unidentifiedItem()).toEqual({
      name: 'Unidentified item',
      quantity: 1,
      brand: null,
      model: null,
      serial: null,
      sku: null,
      condition: null,
      age: null,
      estimated_price: null,
      damage: null,
      notes: null,
      confidence: 0,
      evidence: null,
    });
  });

  it("takes the user's quantity and the source note like any other item", () => {
    const draft = draftFromModel(unidentifiedItem(), {
      group_index: 6,
      photos: [{ filename: 'orig_0006.jpg', key: 'k/6' }],
      notes: ['Vase'],
      quantity: 3,
    });
    expect(draft).toMatchObject({
      name: 'Unidentified item',
      quantity: 3,
      confidence: 0,
      notes: 'From the source PDF: Vase',
    });
  });
});
