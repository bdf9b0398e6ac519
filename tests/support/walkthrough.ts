/**
 * Media for the video and audio pipeline tests, made at test time.
 *
 * makeWalkthrough: an H.264 MP4 "walkthrough" of a room: a neutral grey
 * background with an unsaturated texture (luma grain, part of it new on every
 * frame, so frame sharpness varies a little from frame to frame) and
 * flat boxes of strongly saturated colours at known places and times, which
 * the fake AI gateway's vision mode (tests/fakes/ai-vision.ts) names
 * "Red box" and so on. Optionally a sound track of tone bursts (one word each
 * to the fake speech-to-text provider), sparse keyframes, or a phone-style
 * variable frame rate.
 *
 * makeVoiceNote: an M4A (AAC) voice note in which espeak-ng says each word
 * once, with silence between the words, laid out so that the fake
 * speech-to-text provider hears exactly one burst per word, at the times it
 * returns.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeToneBursts } from './fake-speech';

const ffmpeg = process.env.FFMPEG_PATH || 'ffmpeg';
const espeak = process.env.ESPEAK_PATH || 'espeak-ng';

/** The colours the fake's vision mode recognises, as drawn (full saturation and value). */
const COLOUR_HEX = {
  red: '0xFF0000',
  green: '0x00FF00',
  blue: '0x0000FF',
  yellow: '0xFFFF00',
  magenta: '0xFF00FF',
  cyan: '0x00FFFF',
} as const;
type WalkthroughColour = keyof typeof COLOUR_HEX;

/** A box as fractions (0..1) of the frame's width and height, from its top-left corner. */
export interface FractionBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WalkthroughObject {
  colour: WalkthroughColour;
  /** Seconds; the box is on every frame with from ≤ t ≤ to. */
  from: number;
  to: number;
  box: FractionBox;
}

export interface WalkthroughOptions {
  seconds: number;
  width?: number;
  height?: number;
  /** Frame rate (of the first half when variableFrameRate). */
  fps?: number;
  objects: WalkthroughObject[];
  /** [start, end) seconds of tone on an AAC sound track; without it the clip has no audio stream at all. */
  bursts?: [number, number][];
  /** One keyframe every this many seconds and none in between (no scene-cut keyframes). */
  keyframeIntervalSeconds?: number;
  /** Phone-style VFR: from half-way every third frame is dropped, timestamps kept (intervals of 1/fps and 2/fps). */
  variableFrameRate?: boolean;
  /**
   * false leaves out the grain that changes on every frame (the fixed grain stays): far quicker to make and
   * to encode, for long clips where frame-to-frame sharpness differences do not matter. Default true.
   */
  changingGrain?: boolean;
}

function run(args: string[], input?: Buffer): void {
  execFileSync(ffmpeg, ['-v', 'error', '-y', ...args], { input, maxBuffer: 64 * 1024 * 1024 });
}

function videoFilter(o: WalkthroughOptions, fps: number): string {
  const width = o.width ?? 640;
  const height = o.height ?? 360;
  const filters = [
    `color=c=0x808080:s=${width}x${height}:r=${fps}:d=${o.seconds}`,
    'format=yuv420p',
    // Unsaturated texture, luma only: a fixed grain plus a little grain that changes on every frame,
    // so the measured sharpness differs a little between frames.
    'noise=c0s=12:c0f=u',
    ...(o.changingGrain === false ? [] : ['noise=c0s=3:c0f=t']),
    ...o.objects.map(
      ({ colour, from, to, box }) =>
        `drawbox=x=iw*${box.x}:y=ih*${box.y}:w=iw*${box.width}:h=ih*${box.height}:color=${COLOUR_HEX[colour]}:t=fill:enable='between(t,${from},${to})'`,
    ),
  ];
  if (o.variableFrameRate) filters.push(`select='lt(t,${o.seconds / 2})+not(eq(mod(n,3),2))'`);
  return filters.join(',');
}

/** Writes the walkthrough clip to `path` (H.264 yuv420p MP4, index at the front) and returns `path`. */
export function makeWalkthrough(path: string, o: WalkthroughOptions): string {
  const fps = o.fps ?? 30;
  const dir = mkdtempSync(join(tmpdir(), 'walkthrough-'));
  try {
    const args = ['-f', 'lavfi', '-i', videoFilter(o, fps)];
    if (o.bursts) {
      const sound = join(dir, 'sound.wav');
      makeToneBursts(sound, o.bursts, o.seconds);
      args.push('-i', sound);
    }
    args.push('-map', '0:v');
    if (o.bursts) args.push('-map', '1:a', '-c:a', 'aac', '-b:a', '96k', '-shortest');
    args.push('-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p');
    if (o.keyframeIntervalSeconds) {
      const gop = String(Math.max(1, Math.round(o.keyframeIntervalSeconds * fps)));
      args.push('-g', gop, '-keyint_min', gop, '-sc_threshold', '0');
    }
    if (o.variableFrameRate) args.push('-fps_mode', 'vfr');
    run([...args, '-movflags', '+faststart', path]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return path;
}

export interface VoiceNote {
  path: string;
  /** Length of the recording in seconds. */
  seconds: number;
  /** Where each word is spoken: [start, end) in seconds, in order. */
  words: { word: string; start: number; end: number }[];
}

/**
 * Words of one short syllable each with no long stop inside: each is heard as
 * one burst of sound by the fake speech-to-text provider.
 */
export const VOICE_NOTE_WORDS = ['lamp', 'chair', 'desk', 'rug', 'couch'];

const SAMPLE_RATE = 22_050;
/** A sample this loud (fraction of full scale) is speech when trimming a word's leading and trailing silence. */
const SPEECH_LEVEL = 0.01;

/** espeak-ng's voice for one word, as 16-bit mono samples at its native 22.05 kHz, silence trimmed off both ends. */
function spokenWord(word: string): Int16Array {
  // --stdout writes a WAV whose size fields are left at their maximum: read the samples after the data tag.
  const wav = execFileSync(espeak, ['--stdout', word]);
  const data = wav.indexOf('data', 12, 'latin1');
  const rate = wav.readUInt32LE(24);
  if (data < 0 || rate !== SAMPLE_RATE || wav.readUInt16LE(22) !== 1)
    throw new Error(`espeak-ng: unexpected WAV for "${word}"`);
  const bytes = wav.subarray(data + 8);
  const samples = new Int16Array(Math.floor(bytes.length / 2));
  for (let i = 0; i < samples.length; i++) samples[i] = bytes.readInt16LE(i * 2);
  const loud = (s: number) => Math.abs(s) / 32768 > SPEECH_LEVEL;
  const first = samples.findIndex(loud);
  const last = samples.findLastIndex(loud);
  if (first < 0) throw new Error(`espeak-ng said nothing for "${word}"`);
  return samples.slice(first, last + 1);
}

/**
 * Writes a voice note to `path` as M4A (AAC in MP4, the format phones record):
 * gapSeconds of silence, then each word followed by gapSeconds of silence,
 * then silence up to totalSeconds when given (it must leave room for the words).
 */
export function makeVoiceNote(
  path: string,
  words: string[] = VOICE_NOTE_WORDS,
  { gapSeconds = 1, totalSeconds }: { gapSeconds?: number; totalSeconds?: number } = {},
): VoiceNote {
  if (words.length === 0) throw new Error('a voice note needs at least one word');
  const gap = Math.round(gapSeconds * SAMPLE_RATE);
  const spoken = words.map(spokenWord);
  const natural = gap + spoken.reduce((sum, s) => sum + s.length + gap, 0);
  const total = totalSeconds === undefined ? natural : Math.round(totalSeconds * SAMPLE_RATE);
  if (total < natural)
    throw new Error(`${words.length} words need ${(natural / SAMPLE_RATE).toFixed(2)} s, more than ${totalSeconds} s`);
  const pcm = Buffer.alloc(total * 2);
  const timings: VoiceNote['words'] = [];
  let at = gap;
  spoken.forEach((samples, n) => {
    for (let i = 0; i < samples.length; i++) pcm.writeInt16LE(samples[i], (at + i) * 2);
    timings.push({ word: words[n], start: at / SAMPLE_RATE, end: (at + samples.length) / SAMPLE_RATE });
    at += samples.length + gap;
  });
  run(
    [
      ...['-f', 's16le', '-ar', String(SAMPLE_RATE), '-ac', '1', '-i', '-'],
      ...['-c:a', 'aac', '-b:a', '64k', '-movflags', '+faststart', '-f', 'mp4', path],
    ],
    pcm,
  );
  return { path, seconds: total / SAMPLE_RATE, words: timings };
}
