/** Cutting a voice note's transcript into chunks without cutting words. */
import { AUDIO_CHUNK_SECONDS, audioChunks } from '../../../../lib/pipelines/audio/chunk-rules';
import type { TimedWord } from '../../../../lib/pipelines/video/chunk-rules';

const word = (w: string, start: number, end = start + 0.4): TimedWord => ({ word: w, start, end });

describe('audioChunks', () => {
  it('gives each word to the chunk its start falls in, with the chunk text', () => {
    const segments = [
      { words: [word('A', 1), word('Samsung', 29.8, 30.4), word('TV.', 30.5)] },
      { words: [word('Two', 61), word('chairs.', 61.5)] },
    ];
    expect(audioChunks(segments, 75, 30)).toEqual([
      { index: 0, start: 0, end: 30, words: [word('A', 1), word('Samsung', 29.8, 30.4)], text: 'A Samsung' },
      { index: 1, start: 30, end: 60, words: [word('TV.', 30.5)], text: 'TV.' },
      { index: 2, start: 60, end: 75, words: [word('Two', 61), word('chairs.', 61.5)], text: 'Two chairs.' },
    ]);
  });

  it('uses two-minute chunks by default and leaves out silent chunks, keeping the indexes', () => {
    expect(AUDIO_CHUNK_SECONDS).toBe(120);
    const chunks = audioChunks([{ words: [word('Sofa', 10), word('Piano', 250)] }], 300);
    expect(chunks.map((c) => [c.index, c.start, c.end, c.text])).toEqual([
      [0, 0, 120, 'Sofa'],
      [2, 240, 300, 'Piano'],
    ]);
  });

  it('reaches the last word when the transcript runs past the probed duration, or the duration is unknown', () => {
    const late = audioChunks([{ words: [word('Lamp', 5), word('Desk', 31, 31.6)] }], 30, 30);
    expect(late.map((c) => [c.index, c.end, c.text])).toEqual([
      [0, 30, 'Lamp'],
      [1, 31.6, 'Desk'],
    ]);
    expect(audioChunks([{ words: [word('Rug', 70)] }], Number.NaN, 30).map((c) => c.index)).toEqual([2]);
  });

  it('makes one chunk of a single word at 0 s with no length', () => {
    expect(audioChunks([{ words: [word('Hi', 0, 0)] }], 0, 30)).toEqual([
      { index: 0, start: 0, end: 30, words: [word('Hi', 0, 0)], text: 'Hi' },
    ]);
  });

  it('has no chunk without words, skipping blank and untimed ones', () => {
    expect(audioChunks([], 90, 30)).toEqual([]);
    expect(
      audioChunks([{ words: [word(' ', 3), word('x', Number.NaN), word('y', -1), word('z', 2, Number.NaN)] }], 90, 30),
    ).toEqual([]);
  });
});
