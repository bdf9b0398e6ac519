import {
  frameFilters,
  frameGraph,
  frameName,
  frameTime,
  keyframeRateFromPackets,
  planAudioPieces,
  showinfoTime,
  toMillis,
  useKeyframeDecode,
} from '../../../lib/media/extraction-rules';

describe('frame names', () => {
  it('names a frame by its time, to the millisecond, fixed width', () => {
    expect(frameName(0)).toBe('frame_000000.000.jpg');
    expect(frameName(123.4)).toBe('frame_000123.400.jpg');
    expect(frameName(7199.9996)).toBe('frame_007200.000.jpg');
  });

  it('sorts names in time order', () => {
    const times = [0, 0.5, 1, 9.999, 10, 99.5, 100, 3600.25, 36000];
    const names = times.map(frameName);

    expect([...names].sort()).toEqual(names);
  });

  it('refuses times it cannot name', () => {
    expect(() => frameName(-1)).toThrow(RangeError);
    expect(() => frameName(Number.NaN)).toThrow(RangeError);
    expect(() => frameName(1e6)).toThrow(RangeError);
  });

  it('reads the time back from a name and nothing from other names', () => {
    expect(frameTime(frameName(123.4))).toBe(123.4);
    expect(frameTime('frame_000001.050.jpg')).toBe(1.05);
    expect(frameTime('../frame_000001.050.jpg')).toBeNull();
    expect(frameTime('frame_1.050.jpg')).toBeNull();
    expect(frameTime('frame_000001.050.jpg.png')).toBeNull();
  });
});

describe('useKeyframeDecode', () => {
  it('decodes keyframes only when they come at least minRatio times the fps', () => {
    expect(useKeyframeDecode(1, 1, 0.8)).toBe(true);
    expect(useKeyframeDecode(0.8, 1, 0.8)).toBe(true);
    expect(useKeyframeDecode(0.79, 1, 0.8)).toBe(false);
    expect(useKeyframeDecode(0.1, 1, 0.8)).toBe(false);
    expect(useKeyframeDecode(1, 2, 0.8)).toBe(false);
  });

  it('is off with a ratio of 0, an unknown rate or no fps', () => {
    expect(useKeyframeDecode(30, 1, 0)).toBe(false);
    expect(useKeyframeDecode(null, 1, 0.8)).toBe(false);
    expect(useKeyframeDecode(1, 0, 0.8)).toBe(false);
  });
});

describe('keyframeRateFromPackets', () => {
  /** Packets of `seconds` at `fps` with a keyframe every `gop`, in decode order with B-frame shuffling. */
  function packets(seconds: number, fps: number, gop: number): string {
    const lines: string[] = [];
    for (let i = 0; i < seconds * fps; i++) {
      const shuffled = i % 3 === 1 ? i + 1 : i % 3 === 2 ? i - 1 : i;
      lines.push(`${(shuffled / fps).toFixed(6)},${shuffled % gop === 0 ? 'K_' : '__'}`);
    }
    return `${lines.join('\n')}\n`;
  }

  it('counts keyframes per second of the sampled span', () => {
    expect(keyframeRateFromPackets(packets(10, 30, 30), 30)).toBeCloseTo(1, 2);
    expect(keyframeRateFromPackets(packets(10, 30, 300), 30)).toBeCloseTo(0.1, 2);
    expect(keyframeRateFromPackets(packets(60, 30, 60), 30)).toBeCloseTo(0.5, 2);
  });

  it('looks only at the sample window', () => {
    const front = packets(6, 10, 10);
    const rest = Array.from({ length: 50 }, (_, i) => `${(6 + i / 10).toFixed(6)},K_`).join('\n');

    expect(keyframeRateFromPackets(`${front}${rest}`, 5)).toBeCloseTo(1, 2);
  });

  it('skips packets without a timestamp and is null without a span', () => {
    expect(keyframeRateFromPackets('N/A,K_\n0.000000,K_\n0.500000,__\n', 30)).toBeCloseTo(1, 2);
    expect(keyframeRateFromPackets('', 30)).toBeNull();
    expect(keyframeRateFromPackets('0.000000,K_\n', 30)).toBeNull();
    expect(keyframeRateFromPackets('1.000000\n', 30)).toBeNull();
  });
});

describe('frameFilters', () => {
  it('samples on the fps grid, caps the long edge and reports frames', () => {
    expect(frameFilters({ fps: 1, longEdge: 1600, keyframesOnly: false })).toBe(
      "fps=fps=1:start_time=0:round=up,scale=w='min(iw,1600)':h='min(ih,1600)':force_original_aspect_ratio=decrease,showinfo",
    );
  });

  it('thins keyframes to the frame interval and keeps full size with 0', () => {
    expect(frameFilters({ fps: 2, longEdge: 0, keyframesOnly: true })).toBe(
      "select='isnan(prev_selected_t)+gte(t-prev_selected_t,0.49)',showinfo",
    );
  });
});

describe('frameGraph', () => {
  it('splits the frames after showinfo and caps the preview copy', () => {
    expect(frameGraph({ fps: 1, longEdge: 1600, keyframesOnly: false, previewLongEdge: 768 })).toBe(
      "[0:v:0]fps=fps=1:start_time=0:round=up,scale=w='min(iw,1600)':h='min(ih,1600)':force_original_aspect_ratio=decrease,showinfo," +
        "split=2[frame][small];[small]scale=w='min(iw,768)':h='min(ih,768)':force_original_aspect_ratio=decrease[preview]",
    );
  });

  it('refuses a preview without a size', () => {
    expect(() => frameGraph({ fps: 1, longEdge: 0, keyframesOnly: true, previewLongEdge: 0 })).toThrow(RangeError);
  });
});

describe('showinfoTime', () => {
  it('reads pts_time from a frame line and ignores other lines', () => {
    const line =
      '[Parsed_showinfo_2 @ 0x55d] n:  12 pts:     12 pts_time:6       pos:   -1 fmt:yuvj420p sar:1/1 s:640x360';

    expect(showinfoTime(line)).toBe(6);
    expect(showinfoTime('[Parsed_showinfo_0 @ 0x5] n:   0 pts:   7680 pts_time:0.5     pos: 1')).toBe(0.5);
    expect(showinfoTime('[Parsed_showinfo_0 @ 0x5] n:   3 pts:   1 pts_time:1e-06 pos: 1')).toBe(0.000001);
    expect(showinfoTime('[Parsed_showinfo_2 @ 0x55d] color_range:pc color_space:unknown')).toBeNull();
    expect(showinfoTime('Stream #0:0: Video: mjpeg, yuvj420p, 640x360')).toBeNull();
  });
});

describe('planAudioPieces', () => {
  const big = { maxSeconds: 40, maxBytes: 25_000_000 };

  it('cuts by duration: 95 s at 40 s max gives offsets 0, 40, 80', () => {
    expect(planAudioPieces(95, 300_000, big)).toEqual([
      { offsetSeconds: 0, durationSeconds: 40 },
      { offsetSeconds: 40, durationSeconds: 40 },
      { offsetSeconds: 80, durationSeconds: 15 },
    ]);
  });

  it('keeps audio within both limits whole', () => {
    expect(planAudioPieces(39.5, 100_000, big)).toEqual([{ offsetSeconds: 0, durationSeconds: 39.5 }]);
  });

  it('cuts by size with a margin when bytes are the tighter limit', () => {
    // 10 000 bytes/s; 90% of 100 000 bytes → 9 s pieces.
    expect(planAudioPieces(20, 200_000, { maxSeconds: 600, maxBytes: 100_000 })).toEqual([
      { offsetSeconds: 0, durationSeconds: 9 },
      { offsetSeconds: 9, durationSeconds: 9 },
      { offsetSeconds: 18, durationSeconds: 2 },
    ]);
  });

  it('never makes pieces shorter than a second, and nothing of empty audio', () => {
    expect(planAudioPieces(2.5, 5_000_000, { maxSeconds: 40, maxBytes: 10 })).toEqual([
      { offsetSeconds: 0, durationSeconds: 1 },
      { offsetSeconds: 1, durationSeconds: 1 },
      { offsetSeconds: 2, durationSeconds: 0.5 },
    ]);
    expect(planAudioPieces(0, 0, big)).toEqual([]);
    expect(planAudioPieces(Number.NaN, 0, big)).toEqual([]);
    expect(planAudioPieces(Number.POSITIVE_INFINITY, 0, big)).toEqual([]);
    expect(planAudioPieces(100, 0, { maxSeconds: 0, maxBytes: 10 })).toEqual([]);
    expect(planAudioPieces(50, 0, big).map((p) => p.offsetSeconds)).toEqual([0, 40]);
  });

  it('starts each later piece the overlap before the previous one ends', () => {
    expect(planAudioPieces(25, 0, { maxSeconds: 10, maxBytes: 1e9, overlapSeconds: 2 })).toEqual([
      { offsetSeconds: 0, durationSeconds: 10 },
      { offsetSeconds: 8, durationSeconds: 10 },
      { offsetSeconds: 16, durationSeconds: 9 },
    ]);
  });

  it('holds the overlap under half a piece so pieces always advance', () => {
    expect(planAudioPieces(20, 0, { maxSeconds: 10, maxBytes: 1e9, overlapSeconds: 50 })).toEqual([
      { offsetSeconds: 0, durationSeconds: 10 },
      { offsetSeconds: 5, durationSeconds: 10 },
      { offsetSeconds: 10, durationSeconds: 10 },
    ]);
    const plain = planAudioPieces(15, 0, { maxSeconds: 10, maxBytes: 1e9 });
    expect(planAudioPieces(15, 0, { maxSeconds: 10, maxBytes: 1e9, overlapSeconds: -3 })).toEqual(plain);
    expect(planAudioPieces(15, 0, { maxSeconds: 10, maxBytes: 1e9, overlapSeconds: Number.NaN })).toEqual(plain);
  });
});

describe('toMillis', () => {
  it('rounds to the millisecond', () => {
    expect(toMillis(1.23456)).toBe(1.235);
    expect(toMillis(0.1 + 0.2)).toBe(0.3);
  });
});
