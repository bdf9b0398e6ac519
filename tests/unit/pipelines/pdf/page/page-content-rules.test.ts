import {
  compilePattern,
  inReadingOrder,
  readPages,
  roomAfter,
  roomAt,
} from '../../../../../lib/pipelines/pdf/page/page-content-rules';
import { image, page, recipe, run } from '../../../../support/pdf-layouts';

describe('compilePattern', () => {
  it('compiles the pattern as written, and gives null for none or one that does not compile', () => {
    expect(compilePattern('^Item \\d+')?.test('Item 4')).toBe(true);
    expect(compilePattern('^Item')?.test('item')).toBe(false);
    expect(compilePattern(null)).toBeNull();
    expect(compilePattern('')).toBeNull();
    expect(compilePattern('([a-')).toBeNull();
  });
});

describe('inReadingOrder', () => {
  it('reads rows top to bottom and each row left to right', () => {
    const box = (name: string, x: number, y: number, height = 100) => ({ name, x, y, width: 100, height });
    const order = inReadingOrder([box('c', 0, 200), box('b', 200, 10), box('a', 0, 40), box('d', 200, 260, 20)]);
    // b (10..110) and a (40..140) share 70 pt: one row. d (260..280) shares 20 pt with c, all its height: c's row.
    expect(order.map((b) => b.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(inReadingOrder([])).toEqual([]);
  });
});

describe('readPages and rooms', () => {
  it('keeps photos, readable lines and room headings apart, and tracks the room in force', () => {
    const [content] = readPages(
      [
        page(1, {
          images: [image('b', 300, 100, 100, 100), image('a', 50, 100, 100, 100)],
          texts: [run('Room: Den', 50, 40), run('Header', 300, 40), run('Lamp', 50, 203), run('Room: Hall', 50, 400)],
        }),
      ],
      recipe({ room_pattern: '^Room: (.+)$', ignore_patterns: ['^Header$'] }),
    );
    expect(content.photos.map((p) => p.imageId)).toEqual(['a', 'b']);
    expect(content.lines.map((l) => l.text)).toEqual(['Lamp']);
    expect(content.rooms.map((r) => r.name)).toEqual(['Den', 'Hall']);
    expect(roomAt(content, 30, 'Attic')).toBe('Attic');
    expect(roomAt(content, 100, 'Attic')).toBe('Den');
    expect(roomAt(content, 500, null)).toBe('Hall');
    expect(roomAfter(content, 'Attic')).toBe('Hall');
    expect(roomAfter({ ...content, rooms: [] }, 'Attic')).toBe('Attic');
  });
});
