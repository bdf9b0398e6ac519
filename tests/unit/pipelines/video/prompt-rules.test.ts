/** The words of one video chunk's request. */
import { VIDEO_OUTPUT_CONTRACT } from '../../../../lib/pipelines/video/answer-schemas';
import type { TimedWord } from '../../../../lib/pipelines/video/chunk-rules';
import {
  chunkUserText,
  recordingName,
  clock,
  frameLabel,
  transcriptLines,
  VIDEO_INSTRUCTIONS,
  videoSystemPrompt,
} from '../../../../lib/pipelines/video/prompt-rules';

const word = (w: string, start: number, end = start + 0.3): TimedWord => ({ word: w, start, end });

describe('videoSystemPrompt', () => {
  it('follows the instructions with the output contract', () => {
    expect(videoSystemPrompt()).toBe(`${VIDEO_INSTRUCTIONS}\n\n${VIDEO_OUTPUT_CONTRACT}`);
    expect(videoSystemPrompt('  List items.\n')).toBe(`List items.\n\n${VIDEO_OUTPUT_CONTRACT}`);
  });

  it('asks for items seen or named, one entry each, with the frame name and box', () => {
    expect(VIDEO_INSTRUCTIONS).toMatch(/items visible in the frames, and items the narration names/);
    expect(VIDEO_INSTRUCTIONS).toMatch(/One entry per distinct item/);
    expect(VIDEO_OUTPUT_CONTRACT).toMatch(/frame \(the exact name of the frame/);
    expect(VIDEO_OUTPUT_CONTRACT).toMatch(/box \(where the item is on that frame/);
  });
});

describe('clock', () => {
  it.each([
    [0, '0:00'],
    [83.9, '1:23'],
    [600, '10:00'],
    [3723, '1:02:03'],
    [-2, '0:00'],
  ])('writes %s s as %s', (seconds, text) => {
    expect(clock(seconds)).toBe(text);
  });
});

describe('transcriptLines', () => {
  it('starts a line at each sentence end, pause and after a long stretch, with its start time', () => {
    const words = [
      word('This', 30),
      word('is', 30.4),
      word('the', 30.8),
      word('sofa.', 31.2),
      word('Bought', 32),
      word('2019', 32.5),
      word('and', 36),
      ...Array.from({ length: 30 }, (_, i) => word('la', 37 + i * 0.5)),
    ];
    expect(transcriptLines(words)).toEqual([
      '[0:30] This is the sofa.',
      '[0:32] Bought 2019',
      `[0:36] and ${Array(22).fill('la').join(' ')}`,
      `[0:48] ${Array(8).fill('la').join(' ')}`,
    ]);
  });

  it('skips blank words and has no line without words', () => {
    expect(transcriptLines([word(' ', 1), word('Lamp', 2)])).toEqual(['[0:02] Lamp']);
    expect(transcriptLines([])).toEqual([]);
  });
});

describe('chunkUserText', () => {
  const chunk = { start: 30, end: 60 };
  const frames = [
    { name: 'frame_000031.jpg', time: 31 },
    { name: 'frame_000042.jpg', time: 42.5 },
  ];

  it('names the time range, each frame with its time and the narration', () => {
    const text = chunkUserText({ chunk, frames, words: [word('A', 33), word('Samsung', 33.3), word('TV.', 33.8)] });
    expect(text.split('\n\n')).toEqual([
      'This is the part of the walkthrough video from 0:30 to 1:00 (30 s to 60 s).',
      '2 frames follow, in time order:\n- Frame frame_000031.jpg at 0:31 (31 s)\n- Frame frame_000042.jpg at 0:42 (42.5 s)',
      'What was said during this part:\n[0:33] A Samsung TV.',
      'List every distinct item visible in the frames or named in the narration, one entry per item, with video_time in seconds, the frame it is best seen on and its box on that frame (null for items that are only named).',
    ]);
    expect(frameLabel({ name: 'frame_000001.jpg', time: 1 / 3 })).toBe('Frame frame_000001.jpg at 0:00 (0.33 s)');
  });

  it("names the recording's file when it has one", () => {
    const text = chunkUserText({ chunk, frames, words: [], recording: '  Kitchen\n walkthrough.mp4 ' });
    expect(text.split('\n\n')[0]).toBe(
      'This is the part of the walkthrough video "Kitchen walkthrough.mp4" from 0:30 to 1:00 (30 s to 60 s).',
    );
    expect(recordingName('  ')).toBe('');
    expect(recordingName(null)).toBe('');
    expect(recordingName('x'.repeat(300))).toBe(` "${'x'.repeat(200)}"`);
  });

  it('says when there is no narration, one frame, or no frame', () => {
    const silent = chunkUserText({ chunk, frames: frames.slice(0, 1), words: [] });
    expect(silent).toContain('One frame follows, in time order:');
    expect(silent).toContain('Nothing was said during this part (or there is no transcript)');
    expect(chunkUserText({ chunk, frames: [], words: [word('Piano', 40)] })).toContain(
      'No frames are sent for this part; list only the items the narration names',
    );
  });
});
