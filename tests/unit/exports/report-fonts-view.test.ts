/**
 * The visual order of a report's right-to-left lines (UAX #9 through bidi-js): Hebrew and Arabic
 * names alone and mixed with Latin words and digits, one line of a wrapped name, brackets mirrored,
 * and a run cut where the font changes.
 * Covers: lib/exports/report-fonts-view.ts (visualRuns, bidiLevels).
 */
import { bidiLevels, type VisualRun, visualRuns } from '../../../lib/exports/report-fonts-view';

/** The runs of text[start, end) in one font, as [text in stored order, right to left]. */
const runs = (text: string, start = 0, end = text.length) =>
  visualRuns(text, bidiLevels(text), start, end, () => 'font').map((r) => [r.text, r.rightToLeft]);

/** The characters as they are drawn, left to right. */
const drawn = (visual: VisualRun<unknown>[]) =>
  visual.map((r) => (r.rightToLeft ? [...r.text].reverse().join('') : r.text)).join('');
const drawnLine = (text: string, start = 0, end = text.length) =>
  drawn(visualRuns(text, bidiLevels(text), start, end, () => 'font'));

describe('visualRuns', () => {
  it('draws a Hebrew or Arabic name right to left, its first word on the right', () => {
    expect(runs('שולחן עץ')).toEqual([['שולחן עץ', true]]);
    expect(drawnLine('שולחן עץ')).toBe('ץע ןחלוש');
    expect(drawnLine('طاولة خشبية')).toBe('ةيبشخ ةلواط');
  });

  it('keeps Latin words and numbers inside a right-to-left name reading left to right, in their place', () => {
    // The name reads from the right: כיסא, then "IKEA 2".
    expect(runs('כיסא IKEA 2')).toEqual([
      ['IKEA 2', false],
      ['כיסא ', true],
    ]);
    expect(runs('تلفزيون 65 بوصة')).toEqual([
      [' بوصة', true],
      ['65', false],
      ['تلفزيون ', true],
    ]);
    expect(drawnLine('تلفزيون 65 بوصة')).toBe('ةصوب 65 نويزفلت');
    // Arabic-Indic digits too.
    expect(runs('غرفة ١٢')).toEqual([
      ['١٢', false],
      ['غرفة ', true],
    ]);
    expect(runs('كرسي Chair')).toEqual([
      ['Chair', false],
      ['كرسي ', true],
    ]);
  });

  it('keeps a right-to-left word inside a left-to-right name in its place, a number after it on its left', () => {
    expect(runs('Chair كرسي')).toEqual([
      ['Chair ', false],
      ['كرسي', true],
    ]);
    expect(runs('Кресло כיסא 3 Poäng')).toEqual([
      ['Кресло ', false],
      ['3', false],
      ['כיסא ', true],
      [' Poäng', false],
    ]);
  });

  it('mirrors brackets in right-to-left text', () => {
    expect(drawnLine('טלוויזיה (סלון)')).toBe('(ןולס) היזיוולט');
    // A run keeps its stored order, its brackets already mirrored.
    expect(runs('(סלון) 55')).toEqual([
      ['55', false],
      [')סלון( ', true],
    ]);
    expect(drawnLine('(סלון) 55')).toBe('55 (ןולס)');
  });

  it('orders each line of a wrapped name on its own, with the whole name’s levels', () => {
    const name = 'אחד שתיים IKEA שלוש';
    expect(drawnLine(name, 0, 9)).toBe('םייתש דחא');
    expect(runs(name, 10, name.length)).toEqual([
      [' שלוש', true],
      ['IKEA', false],
    ]);
    expect(runs(name, 4, 4)).toEqual([]);
  });

  it('cuts a run where the font changes', () => {
    const text = 'טלוויזיה (55)';
    const hebrew = /[\u0590-\u05ff]/;
    const visual = visualRuns(text, bidiLevels(text), 0, text.length, (i) =>
      hebrew.test(text[i]) ? 'hebrew' : 'latin',
    );
    expect(visual).toEqual([
      { font: 'latin', text: '(', rightToLeft: true },
      { font: 'latin', text: '55', rightToLeft: false },
      { font: 'latin', text: ' )', rightToLeft: true },
      { font: 'hebrew', text: 'טלוויזיה', rightToLeft: true },
    ]);
    expect(drawn(visual)).toBe('(55) היזיוולט');
  });
});
