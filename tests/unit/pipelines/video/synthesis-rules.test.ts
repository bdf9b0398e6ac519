/** Synthesis: video-time order, the close-up and context rectangles, the nearest frame. */
import {
  CLOSE_UP_MARGIN,
  CLOSE_UP_MIN_EDGE,
  CONTEXT_SCALE,
  analyzedSeconds,
  asFractions,
  closeUpRect,
  contextRect,
  nearestFrame,
  orderByVideoTime,
  videoItemNotes,
} from '../../../../lib/pipelines/video/synthesis-rules';
import { cropRect } from '../../../../lib/media/resize';

describe('orderByVideoTime', () => {
  it('sorts by video time and keeps the order of items at the same time', () => {
    const items = [
      { id: 'a', video_time: 40 },
      { id: 'b', video_time: 3 },
      { id: 'c', video_time: 40 },
      { id: 'd', video_time: 12.5 },
      { id: 'e', video_time: 3 },
    ];
    expect(orderByVideoTime(items).map((i) => i.id)).toEqual(['b', 'e', 'd', 'a', 'c']);
    expect(items[0].id).toBe('a');
  });
});

describe('closeUpRect', () => {
  it('pads the box by the margin on each side', () => {
    expect(CLOSE_UP_MARGIN).toBe(0.15);
    // Box 400 x 200 px at (400, 300) on 1280 x 720: padded to 520 x 260 around (600, 400).
    expect(closeUpRect({ x: 400 / 1280, y: 300 / 720, width: 400 / 1280, height: 200 / 720 }, 1280, 720)).toEqual({
      left: 340,
      top: 270,
      width: 520,
      height: 260,
    });
  });

  it('grows a tiny box to the minimum edge around its centre', () => {
    expect(CLOSE_UP_MIN_EDGE).toBe(160);
    expect(closeUpRect({ x: 0.5, y: 0.5, width: 0.01, height: 0.01 }, 1000, 1000)).toEqual({
      left: 425,
      top: 425,
      width: 160,
      height: 160,
    });
  });

  it('moves the padded box inside the frame at an edge and cuts it to the frame when larger', () => {
    expect(closeUpRect({ x: 0, y: 0.9, width: 0.1, height: 0.1 }, 1000, 1000)).toEqual({
      left: 0,
      top: 840,
      width: 160,
      height: 160,
    });
    expect(closeUpRect({ x: 0, y: 0, width: 1, height: 1 }, 640, 360)).toEqual({
      left: 0,
      top: 0,
      width: 640,
      height: 360,
    });
    expect(closeUpRect({ x: 0.2, y: 0.2, width: 0.5, height: 0.5 }, 100, 80, { minEdge: 0, margin: 0 })).toEqual({
      left: 20,
      top: 16,
      width: 50,
      height: 40,
    });
  });

  it('never exceeds a frame smaller than the minimum edge', () => {
    expect(closeUpRect({ x: 0.4, y: 0.4, width: 0.1, height: 0.1 }, 120, 90)).toEqual({
      left: 0,
      top: 0,
      width: 120,
      height: 90,
    });
  });

  it('refuses a bad box or frame size', () => {
    expect(() => closeUpRect({ x: 0, y: 0, width: 0, height: 0.5 }, 100, 100)).toThrow(RangeError);
    expect(() => closeUpRect({ x: 0, y: 0, width: 0.5, height: 0.5 }, 0, 100)).toThrow(RangeError);
    expect(() => contextRect({ x: 0, y: 0, width: 0.5, height: 0.5 }, 100, 10.5)).toThrow(RangeError);
  });
});

describe('contextRect', () => {
  it('grows the box 2.5 times around its centre', () => {
    expect(CONTEXT_SCALE).toBe(2.5);
    expect(contextRect({ x: 0.4, y: 0.4, width: 0.2, height: 0.2 }, 1000, 1000)).toEqual({
      left: 250,
      top: 250,
      width: 500,
      height: 500,
    });
  });

  it('stays inside the frame: moved in at an edge, cut to the frame when larger', () => {
    expect(contextRect({ x: 0.9, y: 0, width: 0.1, height: 0.1 }, 1000, 1000)).toEqual({
      left: 750,
      top: 0,
      width: 250,
      height: 250,
    });
    expect(contextRect({ x: 0.1, y: 0.1, width: 0.8, height: 0.8 }, 1280, 720)).toEqual({
      left: 0,
      top: 0,
      width: 1280,
      height: 720,
    });
    expect(contextRect({ x: 0.4, y: 0.4, width: 0.2, height: 0.2 }, 1000, 1000, 1)).toEqual({
      left: 400,
      top: 400,
      width: 200,
      height: 200,
    });
  });
});

describe('nearestFrame', () => {
  const frames = [{ time: 30 }, { time: 31 }, { time: 33 }];

  it('picks the frame closest in time, the earlier on a tie', () => {
    expect(nearestFrame(frames, 31.2)).toEqual({ time: 31 });
    expect(nearestFrame(frames, 32)).toEqual({ time: 31 });
    expect(nearestFrame([...frames].reverse(), 32)).toEqual({ time: 31 });
    expect(nearestFrame(frames, 100)).toEqual({ time: 33 });
    expect(nearestFrame([], 3)).toBeNull();
  });
});

describe('asFractions', () => {
  it('gives back the same pixels through cropRect', () => {
    for (const rect of [
      { left: 0, top: 0, width: 640, height: 360 },
      { left: 17, top: 3, width: 161, height: 99 },
      { left: 479, top: 200, width: 161, height: 160 },
    ])
      expect(cropRect(asFractions(rect, 640, 360), 640, 360)).toEqual(rect);
  });
  it('refuses a frame without whole positive pixels', () => {
    expect(() => asFractions({ left: 0, top: 0, width: 1, height: 1 }, 0, 10)).toThrow(RangeError);
  });
});

describe('videoItemNotes', () => {
  it('adds where the item is seen after the model notes', () => {
    expect(videoItemNotes('  Scratched top ', 83.4)).toBe('Scratched top\nSeen at 1:23 in the video.');
  });
  it('is the place alone without notes', () => {
    expect(videoItemNotes(null, 5)).toBe('Seen at 0:05 in the video.');
    expect(videoItemNotes('  ', 3725)).toBe('Seen at 1:02:05 in the video.');
  });
});

describe('analyzedSeconds', () => {
  const chunks = [
    { index: 0, start: 0, end: 30 },
    { index: 1, start: 30, end: 60 },
    { index: 2, start: 60, end: 75.5 },
  ];
  it('is the whole length when every chunk was delivered', () => {
    expect(analyzedSeconds(75.5, chunks, () => true)).toBe(75.5);
  });
  it('leaves out the chunks that were not delivered', () => {
    expect(analyzedSeconds(75.5, chunks, (i) => i !== 1)).toBe(45.5);
    expect(analyzedSeconds(75.5, chunks, (i) => i === 0)).toBe(30);
  });
  it('never goes below zero and rounds to the millisecond', () => {
    expect(analyzedSeconds(75.5, chunks, () => false)).toBe(0);
    expect(analyzedSeconds(10, chunks, () => false)).toBe(0);
    expect(analyzedSeconds(0.1 + 0.2, [], () => true)).toBe(0.3);
  });
});
