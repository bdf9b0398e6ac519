/** Reading a video chunk's answer leniently: the photo fields, plus time, frame and box checked against the chunk. */
import { VIDEO_ANSWER_JSON_SCHEMA, videoItem } from '../../../../lib/pipelines/video/answer-schemas';
import {
  type ChunkContext,
  lenientBox,
  lenientNumber,
  lenientSeconds,
  readVideoItem,
} from '../../../../lib/pipelines/video/answer-rules';

const context: ChunkContext = {
  chunk: { index: 1, start: 30, end: 60 },
  frames: [
    { name: 'frame_000031.jpg', time: 31 },
    { name: 'frame_000042.jpg', time: 42 },
  ],
};

describe('lenient numbers and times', () => {
  it.each([
    [12, 12],
    ['12', 12],
    ['$1,299', 1299],
    [' 4 ', 4],
    ['', null],
    ['about 5', null],
    [null, null],
    [Number.NaN, null],
  ])('reads %j as %j', (raw, expected) => {
    expect(lenientNumber(raw)).toBe(expected);
  });

  it.each([
    [83, 83],
    ['83', 83],
    ['83s', 83],
    ['83.5 sec', 83.5],
    ['42 seconds', 42],
    ['1:23', 83],
    ['0:01:23', 83],
    ['1:02:03.5', 3723.5],
    [-4, null],
    ['-4', null],
    ['soon', null],
    [undefined, null],
  ])('reads the time %j as %j seconds', (raw, expected) => {
    expect(lenientSeconds(raw)).toBe(expected);
  });
});

describe('lenientBox', () => {
  it('reads fractions from an object, w/h shorthands and a four-number array', () => {
    expect(lenientBox({ x: 0.1, y: 0.2, width: 0.3, height: 0.4 })).toEqual({
      x: 0.1,
      y: 0.2,
      width: 0.3,
      height: 0.4,
    });
    expect(lenientBox({ x: '0.5', y: 0, w: 0.5, h: '0.25' })).toEqual({ x: 0.5, y: 0, width: 0.5, height: 0.25 });
    expect(lenientBox([0, 0, 1, 1])).toEqual({ x: 0, y: 0, width: 1, height: 1 });
  });

  it('clips a box that spills over the frame edge', () => {
    const box = lenientBox({ x: -0.1, y: 0.8, width: 0.5, height: 0.4 });
    expect(box?.x).toBe(0);
    expect(box?.width).toBeCloseTo(0.4, 9);
    expect(box?.y).toBe(0.8);
    expect(box?.height).toBeCloseTo(0.2, 9);
  });

  it.each([
    [null],
    ['0.1,0.2,0.3,0.4'],
    [[0.1, 0.2, 0.3]],
    [{ x: 0.1, y: 0.2, width: 'wide', height: 0.3 }],
    [{ x: 0.1, y: 0.2, width: 0, height: 0.3 }],
    [{ x: 1.2, y: 0.2, width: 0.3, height: 0.3 }],
    [{ x: 500, y: 20, width: 300, height: 200 }],
    [{ x: 10, y: 20, width: 50, height: 40 }],
    [{ x: 0.5, y: 0.5, width: -0.6, height: 0.2 }],
  ])('gives no box for %j', (raw) => {
    expect(lenientBox(raw)).toBeNull();
  });
});

describe('readVideoItem', () => {
  it('reads the photo fields leniently and keeps a frame the chunk sent, with its box', () => {
    const item = readVideoItem(
      {
        name: ' Samsung TV ',
        quantity: '1',
        brand: 'Samsung',
        estimated_price: '$1,299',
        confidence: 0.9,
        video_time: '0:42',
        frame: ' frame_000042.jpg ',
        box: { x: 0.1, y: 0.1, width: 0.5, height: 0.4 },
      },
      context,
    );
    expect(item).toMatchObject({
      name: 'Samsung TV',
      quantity: 1,
      brand: 'Samsung',
      estimated_price: 1299,
      confidence: 0.9,
      video_time: 42,
      frame: 'frame_000042.jpg',
      box: { x: 0.1, y: 0.1, width: 0.5, height: 0.4 },
    });
    expect(videoItem.safeParse(item).success).toBe(true);
  });

  it('drops a frame the chunk did not send, and its box', () => {
    const item = readVideoItem(
      { name: 'Lamp', video_time: 50, frame: 'frame_000099.jpg', box: [0, 0, 0.2, 0.2] },
      context,
    );
    expect(item).toMatchObject({ video_time: 50, frame: null, box: null });
  });

  it("takes the frame's time when the model gave none, else the chunk's start", () => {
    expect(readVideoItem({ name: 'Lamp', frame: 'frame_000031.jpg' }, context)).toMatchObject({
      video_time: 31,
      frame: 'frame_000031.jpg',
      box: null,
    });
    expect(readVideoItem({ name: 'Piano', frame: 7 }, context)).toMatchObject({ video_time: 30, frame: null });
  });

  it('pulls a time outside the chunk into it', () => {
    expect(readVideoItem({ name: 'Rug', video_time: 5 }, context)?.video_time).toBe(30);
    expect(readVideoItem({ name: 'Rug', video_time: 500 }, context)?.video_time).toBe(60);
  });

  it('gives nothing for an item without a name', () => {
    expect(readVideoItem({ quantity: 2, frame: 'frame_000031.jpg' }, context)).toBeNull();
    expect(readVideoItem('TV', context)).toBeNull();
  });
});

describe('the answer contract', () => {
  it('requires every field, with the box as fractions', () => {
    const schema = VIDEO_ANSWER_JSON_SCHEMA.schema as {
      properties: { items: { items: { required: string[] } } };
    };
    expect(schema.properties.items.items.required).toEqual(
      expect.arrayContaining(['name', 'quantity', 'estimated_price', 'confidence', 'video_time', 'frame', 'box']),
    );
    expect(videoItem.shape.box.safeParse({ x: 0, y: 0, width: 1.5, height: 1 }).success).toBe(false);
  });
});
