import {
  contentItems,
  EXPORT_COLUMNS,
  type ExportItem,
  exportTotals,
  groupByRoom,
  itemCells,
  lineValue,
  NAME_COLUMN,
  selectExportItems,
} from '../../../lib/exports/selection-rules';
import { itemRecord } from '../../support/items';

function item(number: number, fields: Partial<ExportItem> = {}): ExportItem {
  return itemRecord({
    id: `item-${number}`,
    room_id: 'kitchen',
    item_number: number,
    name: `Item ${number}`,
    room: 'Kitchen',
    ...fields,
  });
}

describe('selectExportItems', () => {
  const items = [item(3, { approved: true }), item(1), item(2, { is_archived: true, approved: true }), item(4)];

  it('leaves archived items out and orders by item number', () => {
    expect(selectExportItems(items, { approvedOnly: false }).map((i) => i.item_number)).toEqual([1, 3, 4]);
  });

  it('keeps approved items only when asked, archived ones still out', () => {
    expect(selectExportItems(items, { approvedOnly: true }).map((i) => i.item_number)).toEqual([3]);
  });
});

describe('itemCells', () => {
  it('has one cell per column, numbers as numbers, flags as Yes/No', () => {
    const cells = itemCells(
      item(7, {
        name: 'Sofa',
        quantity: 2,
        brand: 'Ikea',
        model: 'KIVIK',
        serial: 'S1',
        sku: 'K-1',
        condition: 'good',
        age: '3 years',
        estimated_price: 499.99,
        damage: 'water',
        notes: 'left side',
        source_label: 'Item 0018',
        confidence: 0.876,
        approved: true,
        reviewed: true,
      }),
      'Living room',
    );
    expect(cells).toHaveLength(EXPORT_COLUMNS.length);
    expect(Object.fromEntries(EXPORT_COLUMNS.map((c, i) => [c.header, cells[i]]))).toEqual({
      'Item #': 7,
      Room: 'Living room',
      Name: 'Sofa',
      Quantity: 2,
      Brand: 'Ikea',
      Model: 'KIVIK',
      Serial: 'S1',
      SKU: 'K-1',
      Condition: 'good',
      Age: '3 years',
      'Estimated price': 499.99,
      Damage: 'water',
      Notes: 'left side',
      'Source label': 'Item 0018',
      Approved: 'Yes',
      Reviewed: 'Yes',
      Confidence: 0.88,
    });
    expect(cells[NAME_COLUMN]).toBe('Sofa');
  });

  it('keeps formula-like texts exactly as written (each file guards them its own way) and keeps nulls', () => {
    const cells = itemCells(item(1, { name: '=1+1', notes: '@SUM(A1)', brand: '-x' }), '+Room');
    expect(cells[NAME_COLUMN]).toBe('=1+1');
    expect(cells).toContain('@SUM(A1)');
    expect(cells).toContain('-x');
    expect(cells[1]).toBe('+Room');
    expect(cells[EXPORT_COLUMNS.findIndex((c) => c.header === 'Estimated price')]).toBeNull();
    expect(cells[EXPORT_COLUMNS.findIndex((c) => c.header === 'Approved')]).toBe('No');
  });
});

describe('totals', () => {
  it('multiplies quantity by price, null without a price', () => {
    expect(lineValue({ quantity: 3, estimated_price: 19.99 })).toBe(59.97);
    expect(lineValue({ quantity: 3, estimated_price: null })).toBeNull();
  });

  it('adds items, quantities and priced values in cents', () => {
    expect(
      exportTotals([
        { quantity: 3, estimated_price: 0.1 },
        { quantity: 1, estimated_price: 0.2 },
        { quantity: 2, estimated_price: null },
      ]),
    ).toEqual({ items: 3, quantity: 6, value: 0.5 });
    expect(exportTotals([])).toEqual({ items: 0, quantity: 0, value: 0 });
  });
});

describe('groupByRoom', () => {
  it('keeps the rooms in order, empty ones too, and adds rooms only items name', () => {
    const rooms = [
      { id: 'kitchen', name: 'Kitchen' },
      { id: 'den', name: 'Den' },
    ];
    const items = [
      item(1),
      item(2, { room_id: 'garage', room: 'Garage' }),
      item(3),
      item(4, { room_id: 'attic', room: null }),
    ];
    const groups = groupByRoom(rooms, items);
    expect(groups.map((g) => [g.name, g.items.map((i) => i.item_number)])).toEqual([
      ['Kitchen', [1, 3]],
      ['Den', []],
      ['Garage', [2]],
      ['Unassigned', [4]],
    ]);
    const content = {
      claim: { claim_number: 'C', insured_name: null, adjuster_name: null, loss_type: null },
      scopeLabel: 'Whole claim',
      approvedOnly: false,
      generatedAt: new Date(),
      rooms: groups,
    };
    expect(contentItems(content).map((i) => i.item_number)).toEqual([1, 3, 2, 4]);
  });
});
