/** The frame-extraction fan-out: units over the duration, frames on one global grid. */
import {
  EXTRACTION_UNIT_SECONDS,
  extractionUnits,
  MAX_UNIT_FRAMES,
  totalFrames,
} from '../../../../lib/pipelines/video/extraction-rules';

describe('totalFrames', () => {
  it('counts the grid points k / fps inside [0, duration)', () => {
    expect(totalFrames(10, 1)).toBe(10);
    expect(totalFrames(10.2, 1)).toBe(11);
    expect(totalFrames(0.3, 1)).toBe(1);
    expect(totalFrames(10, 2)).toBe(20);
    expect(totalFrames(10, 0.5)).toBe(5);
    expect(totalFrames(60.0000000001, 1)).toBe(60);
  });

  it('is 0 for a missing, zero or negative duration and refuses a non-positive fps', () => {
    expect(totalFrames(0, 1)).toBe(0);
    expect(totalFrames(-3, 1)).toBe(0);
    expect(totalFrames(Number.NaN, 1)).toBe(0);
    expect(() => totalFrames(10, 0)).toThrow(RangeError);
    expect(() => totalFrames(10, Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

describe('extractionUnits', () => {
  it('cuts a 2-hour video into 2-minute units that cover every frame exactly once', () => {
    const duration = 2 * 3600;
    const units = extractionUnits(duration, 1);
    expect(EXTRACTION_UNIT_SECONDS).toBe(120);
    expect(units).toHaveLength(60);
    let next = 0;
    for (const [k, unit] of units.entries()) {
      expect(unit.firstFrame).toBe(next);
      if (k > 0) expect(unit.start).toBe(units[k - 1].end);
      expect(unit.start).toBe(unit.firstFrame);
      expect(unit.duration).toBeLessThanOrEqual(120);
      next += unit.frameCount;
    }
    expect(next).toBe(totalFrames(duration, 1));
  });

  it('makes the last unit shorter, ending at the video end', () => {
    const units = extractionUnits(250.5, 1, 120);
    expect(units).toEqual([
      { index: 0, start: 0, end: 120, duration: 120, firstFrame: 0, frameCount: 120 },
      { index: 1, start: 120, end: 240, duration: 120, firstFrame: 120, frameCount: 120 },
      { index: 2, start: 240, end: 250.5, duration: 10.5, firstFrame: 240, frameCount: 11 },
    ]);
  });

  it('starts every unit on the global grid at other rates, so boundaries neither repeat nor skip a frame', () => {
    const fps = 3;
    const units = extractionUnits(100, fps, 10);
    // 10 s at 3 fps is 30 frames; unit k starts at frame 30k, time 10k.
    expect(units).toHaveLength(10);
    units.forEach((unit, k) => {
      expect(unit.firstFrame).toBe(30 * k);
      expect(unit.start).toBeCloseTo(10 * k, 9);
      expect(unit.frameCount).toBe(30);
    });
    const frames = units.flatMap((u) => Array.from({ length: u.frameCount }, (_, i) => u.firstFrame + i));
    expect(new Set(frames).size).toBe(300);
    expect(frames).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it('shortens units at a high frame rate, so the frame records of a unit fit one row', () => {
    // 2 minutes at 30 fps would be 3,600 frames: units of 1,200 frames, 40 s each; 5 minutes are 9,000 frames.
    const units = extractionUnits(300, 30);
    expect(units.map((u) => u.frameCount)).toEqual([...Array(7).fill(MAX_UNIT_FRAMES), 600]);
    expect(units[1].start).toBeCloseTo(40, 9);
  });

  it('rounds a unit to whole frames and keeps at least one frame per unit', () => {
    // 0.4 fps x 10 s = 4 frames per unit, a frame every 2.5 s.
    expect(extractionUnits(25, 0.4, 10).map((u) => [u.start, u.frameCount])).toEqual([
      [0, 4],
      [10, 4],
      [20, 2],
    ]);
    expect(extractionUnits(3, 0.1, 1)).toEqual([
      { index: 0, start: 0, end: 3, duration: 3, firstFrame: 0, frameCount: 1 },
    ]);
  });

  it('has no unit for an empty video and refuses a non-positive unit length', () => {
    expect(extractionUnits(0, 1)).toEqual([]);
    expect(() => extractionUnits(10, 1, 0)).toThrow(RangeError);
  });
});
