import { COLUMN_GAP_HEIGHTS, textLines } from '../../../../../lib/pipelines/pdf/page/text-line-rules';
import { run } from '../../../../support/pdf-layouts';

describe('textLines', () => {
  it('joins the runs of one band left to right with a space at each word gap', () => {
    // Drawn out of order: the reader reports runs in content-stream order.
    const lines = textLines([run('Chair', 62, 100), run('Dining', 30, 100), run('oak', 92, 100.4)]);
    expect(lines).toEqual([
      { text: 'Dining Chair oak', x: 30, y: 100, width: 77, height: expect.closeTo(10.4, 6) as number },
    ]);
  });

  it('glues pieces of one word drawn without a gap, and keeps spaces the document draws', () => {
    expect(textLines([run('Ref', 10, 10, 10, 15), run('rigerator', 25, 10)]).map((l) => l.text)).toEqual([
      'Refrigerator',
    ]);
    expect(textLines([run('Oak ', 10, 10, 10, 20), run('table', 31, 10)]).map((l) => l.text)).toEqual(['Oak table']);
    expect(textLines([run('Oak', 10, 10), run(' table', 28, 10)]).map((l) => l.text)).toEqual(['Oak table']);
  });

  it('collapses inner whitespace and drops runs with no visible text', () => {
    const lines = textLines([run('Two   words', 10, 10, 10, 55), run('   ', 70, 10), run('x', 10, 40, 0)]);
    expect(lines.map((l) => l.text)).toEqual(['Two words']);
  });

  it('puts runs on nearly the same baseline in one line even when they barely overlap (a larger first letter)', () => {
    // A 20 pt capital and 8 pt text: little overlap in share of the band, but the same baseline.
    const lines = textLines([run('B', 10, 100, 20, 12), run('ig sofa', 23, 112, 8)]);
    expect(lines.map((l) => l.text)).toEqual(['Big sofa']);
  });

  it('keeps lines apart when runs only touch vertically', () => {
    const lines = textLines([run('first', 10, 100), run('second', 10, 111), run('third', 10, 122)]);
    expect(lines.map((l) => [l.text, l.y])).toEqual([
      ['first', 100],
      ['second', 111],
      ['third', 122],
    ]);
  });

  it('sends a run to the band it overlaps the most', () => {
    // 'small' (107..111) may join 'upper' (100..110) and 'big' (106..126); it shares more with 'big'.
    const lines = textLines([run('upper', 10, 100), run('big', 200, 106, 20), run('small', 400, 107, 4)]);
    expect(lines.map((l) => l.text)).toEqual(['upper', 'big', 'small']);
  });

  it(`splits a band where the gap is wider than ${COLUMN_GAP_HEIGHTS} font heights (card grid columns)`, () => {
    const lines = textLines([
      run('Sofa', 50, 200),
      run('grey', 72, 200),
      run('Lamp', 230, 200),
      run('brass', 252, 200.5),
      run('Rug', 410, 200),
    ]);
    expect(lines.map((l) => [l.text, l.x])).toEqual([
      ['Sofa grey', 50],
      ['Lamp brass', 230],
      ['Rug', 410],
    ]);
    // Exactly two heights apart still reads as one line.
    expect(textLines([run('a', 0, 0, 10, 5), run('b', 25, 0)]).map((l) => l.text)).toEqual(['a b']);
    expect(textLines([run('a', 0, 0, 10, 5), run('b', 25.5, 0)]).map((l) => l.text)).toEqual(['a', 'b']);
  });

  it('measures the gap from the farthest right edge so far (a run drawn over another)', () => {
    const lines = textLines([run('long heading text', 0, 0, 10, 85), run('x', 10, 0, 10, 5), run('end', 90, 0)]);
    expect(lines.map((l) => l.text)).toEqual(['long heading textx end']);
  });

  it('reads in order: top to bottom, then left to right', () => {
    const lines = textLines([run('B2', 300, 50), run('A2', 10, 50.5), run('A1', 10, 10), run('B1', 300, 10.5)]);
    expect(lines.map((l) => l.text)).toEqual(['A1', 'B1', 'A2', 'B2']);
  });

  it('is empty without text', () => {
    expect(textLines([])).toEqual([]);
  });
});
