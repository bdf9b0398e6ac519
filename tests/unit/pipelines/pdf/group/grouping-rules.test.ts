/** Covers: lib/pipelines/pdf/group/grouping-rules.ts (a contents list's photos grouped by (room, label)). */
import type { PdfPhotoFinding } from '../../../../../lib/pipelines/pdf/finding';
import { groupFindings, sourceItemKey } from '../../../../../lib/pipelines/pdf/group/grouping-rules';

let page = 0;
const finding = (label: string | null, over: Partial<PdfPhotoFinding> = {}): PdfPhotoFinding => ({
  page: ++page,
  source: { kind: 'embedded', imageId: `${page} 0 R` },
  label,
  description: null,
  quantity: null,
  room: null,
  capturedAt: null,
  ...over,
});

const options = { maxPerItem: 5, firstGroupIndex: 0 };

describe('groupFindings', () => {
  it('gives photos under one label one group, numbered in first-seen order, findings kept in order', () => {
    const findings = [finding('Chair'), finding('Sofa'), finding('Chair'), finding('Lamp'), finding('Sofa')];
    const grouped = groupFindings(findings, options);
    expect(grouped.map((g) => g.finding)).toEqual(findings);
    expect(grouped.map((g) => g.groupIndex)).toEqual([0, 1, 0, 2, 1]);
  });

  it('starts at firstGroupIndex', () => {
    const grouped = groupFindings([finding('Chair'), finding(null), finding('Sofa')], {
      ...options,
      firstGroupIndex: 12,
    });
    expect(grouped.map((g) => g.groupIndex)).toEqual([12, 13, 14]);
  });

  it('compares labels and rooms with spaces collapsed and case ignored', () => {
    const grouped = groupFindings(
      [
        finding('Dining chair', { room: 'Kitchen' }),
        finding('  DINING   CHAIR ', { room: 'kitchen ' }),
        finding('dining chair', { room: 'KITCHEN' }),
      ],
      options,
    );
    expect(new Set(grouped.map((g) => g.groupIndex))).toEqual(new Set([0]));
    expect(new Set(grouped.map((g) => g.sourceItemKey)).size).toBe(1);
    expect(grouped.map((g) => g.sourceRoom)).toEqual(['Kitchen', 'Kitchen', 'Kitchen']);
    // The label as first printed (spaces collapsed, case kept) is the readable one on every photo.
    expect(grouped.map((g) => g.sourceLabel)).toEqual(['Dining chair', 'Dining chair', 'Dining chair']);
  });

  it('keeps one label in two rooms as two items, and a label with no room apart from one with a room', () => {
    const grouped = groupFindings(
      [
        finding('Lamp', { room: 'Den' }),
        finding('Lamp', { room: 'Office' }),
        finding('Lamp'),
        finding('Lamp', { room: '  ' }),
      ],
      options,
    );
    expect(grouped.map((g) => g.groupIndex)).toEqual([0, 1, 2, 2]);
    expect(grouped.map((g) => g.sourceRoom)).toEqual(['Den', 'Office', null, null]);
  });

  it('gives each photo without a label (null or blank) a group of its own and no item key', () => {
    const grouped = groupFindings(
      [finding(null, { description: 'Blue vase', room: 'Den' }), finding('   '), finding(null), finding('Vase')],
      options,
    );
    expect(grouped.map((g) => g.groupIndex)).toEqual([0, 1, 2, 3]);
    expect(grouped.map((g) => g.sourceItemKey)).toEqual([null, null, null, sourceItemKey(null, 'Vase')]);
    expect(grouped.map((g) => g.sourceLabel)).toEqual([null, null, null, 'Vase']);
    expect(grouped[0]).toMatchObject({ sourceDescription: 'Blue vase', sourceRoom: 'Den' });
  });

  it('splits a label over maxPerItem into balanced blocks, each its own group with the same key, description and room', () => {
    const photos = Array.from({ length: 31 }, (_, i) =>
      finding('Box 7', { room: 'Garage', description: i === 0 ? '2 x  Toolboxes' : null }),
    );
    const findings = [finding('Rake', { room: 'Garage' }), ...photos, finding('Hose', { room: 'Garage' })];
    const grouped = groupFindings(findings, { maxPerItem: 5, firstGroupIndex: 3 });
    expect(grouped.map((g) => g.finding)).toEqual(findings);
    const box = grouped.slice(1, 32);
    const sizes = new Map<number, number>();
    for (const g of box) sizes.set(g.groupIndex, (sizes.get(g.groupIndex) ?? 0) + 1);
    expect([...sizes.keys()]).toEqual([4, 5, 6, 7, 8, 9, 10]);
    expect([...sizes.values()]).toEqual([5, 5, 5, 4, 4, 4, 4]);
    expect(grouped[0].groupIndex).toBe(3);
    expect(grouped[32].groupIndex).toBe(11);
    expect(new Set(box.map((g) => g.sourceItemKey))).toEqual(new Set([sourceItemKey('Garage', 'Box 7')]));
    expect(new Set(box.map((g) => g.sourceDescription))).toEqual(new Set(['2 x Toolboxes']));
    expect(new Set(box.map((g) => g.sourceRoom))).toEqual(new Set(['Garage']));
    expect(new Set(box.map((g) => g.sourceLabel))).toEqual(new Set(['Box 7']));
  });

  it("keeps each photo's own caption, and gives an uncaptioned photo its item's first caption", () => {
    const grouped = groupFindings(
      [
        finding('Desk'),
        finding('Desk', { description: 'Oak desk' }),
        finding('Desk', { description: 'Drawer detail' }),
      ],
      options,
    );
    expect(grouped.map((g) => g.sourceDescription)).toEqual(['Oak desk', 'Oak desk', 'Drawer detail']);
  });

  it('gives nothing for no findings', () => {
    expect(groupFindings([], options)).toEqual([]);
  });
});

describe('sourceItemKey', () => {
  it('is stable across imports and ignores spacing and case', () => {
    expect(sourceItemKey('Living Room', 'Sofa')).toBe(sourceItemKey(' living  room', 'SOFA '));
    expect(sourceItemKey('Living Room', 'Sofa')).toMatch(/^pdf-[0-9a-f]{24}$/);
  });

  it('tells rooms and labels apart', () => {
    expect(sourceItemKey('Den', 'Sofa')).not.toBe(sourceItemKey('Office', 'Sofa'));
    expect(sourceItemKey(null, 'Sofa')).not.toBe(sourceItemKey('Den', 'Sofa'));
    expect(sourceItemKey('Den', 'Sofa')).not.toBe(sourceItemKey('Den', 'Chair'));
    expect(sourceItemKey('a b', 'c')).not.toBe(sourceItemKey('a', 'b c'));
  });
});
