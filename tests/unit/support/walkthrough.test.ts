/**
 * The pipeline tests' media makers (tests/support/walkthrough.ts): voice notes
 * spoken by espeak-ng that the fake speech-to-text provider hears as exactly
 * one word per spoken word, at the right times, and walkthrough clips with the
 * streams, keyframes and frame rates asked for.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveFfprobe } from '../../../lib/media/ffmpeg';
import { type FakeSpeechServer, startFakeSpeechServer } from '../../fakes/speech-server';
import { frameRates, hasFfmpeg } from '../../support/media';
import { makeVoiceNote, makeWalkthrough, VOICE_NOTE_WORDS, type VoiceNote } from '../../support/walkthrough';

const maybe = hasFfmpeg ? describe : describe.skip;
const TOLERANCE = 0.3;

let speech: FakeSpeechServer;
let dir: string;

interface HeardWord {
  word: string;
  punctuated_word: string;
  start: number;
  end: number;
}

/** What the fake provider hears in a file, with `words` scripted for it. */
async function hear(path: string, words: string[]): Promise<{ duration: number; words: HeardWord[] }> {
  const tag = `note-${randomUUID()}`;
  speech.script(words, tag);
  const res = await fetch(`${speech.url}/v1/listen?model=nova-3&tag=${tag}`, {
    method: 'POST',
    headers: { authorization: `Token ${speech.apiKey}`, 'content-type': 'audio/mp4' },
    body: readFileSync(path),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as any;
  return { duration: body.metadata.duration, words: body.results.channels[0].alternatives[0].words };
}

function expectHeardAsSpoken(heard: HeardWord[], note: VoiceNote) {
  expect(heard.map((w) => w.punctuated_word)).toEqual(note.words.map((w) => w.word));
  heard.forEach((word, n) => {
    expect(Math.abs(word.start - note.words[n].start)).toBeLessThanOrEqual(TOLERANCE);
    expect(Math.abs(word.end - note.words[n].end)).toBeLessThanOrEqual(TOLERANCE);
  });
}

function probe(path: string): { streams: Record<string, any>[]; format: Record<string, any> } {
  return JSON.parse(
    execFileSync(resolveFfprobe(), ['-v', 'error', '-show_streams', '-show_format', '-of', 'json', path]).toString(),
  );
}

function keyframeTimes(path: string): number[] {
  return execFileSync(resolveFfprobe(), [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-show_entries',
    'packet=pts_time,flags',
    '-of',
    'csv=p=0',
    path,
  ])
    .toString()
    .split('\n')
    .filter((line) => line.includes('K'))
    .map((line) => Number.parseFloat(line))
    .sort((a, b) => a - b);
}

beforeAll(async () => {
  speech = await startFakeSpeechServer();
  dir = mkdtempSync(join(tmpdir(), 'walkthrough-test-'));
});

afterAll(async () => {
  await speech.stop();
  rmSync(dir, { recursive: true, force: true });
});

maybe('makeVoiceNote', () => {
  it('speaks the default words one second apart as an M4A the fake provider hears word for word', async () => {
    const note = makeVoiceNote(join(dir, 'default.m4a'));
    expect(note.words.map((w) => w.word)).toEqual(VOICE_NOTE_WORDS);
    note.words.forEach((w, n) => {
      expect(w.end).toBeGreaterThan(w.start + 0.1);
      if (n > 0) expect(w.start - note.words[n - 1].end).toBeCloseTo(1, 3);
    });
    const { streams, format } = probe(note.path);
    expect(format.format_name).toContain('mp4');
    expect(streams.map((s) => s.codec_name)).toEqual(['aac']);

    const heard = await hear(note.path, VOICE_NOTE_WORDS);
    expectHeardAsSpoken(heard.words, note);
    expect(Math.abs(heard.duration - note.seconds)).toBeLessThanOrEqual(TOLERANCE);
  });

  it('pads to the total length asked for, keeps other words and gaps, and refuses a total too short', async () => {
    const words = ['Two', 'chairs,', 'lamp.'];
    const note = makeVoiceNote(join(dir, 'long.m4a'), words, { gapSeconds: 2, totalSeconds: 90 });
    expect(note.seconds).toBe(90);
    expect(note.words[0].start).toBeCloseTo(2, 3);
    expect(Number(probe(note.path).format.duration)).toBeCloseTo(90, 0);
    expectHeardAsSpoken((await hear(note.path, words)).words, note);

    expect(() => makeVoiceNote(join(dir, 'short.m4a'), VOICE_NOTE_WORDS, { totalSeconds: 3 })).toThrow(/more than 3 s/);
  });
});

maybe('makeWalkthrough', () => {
  it('makes an H.264 yuv420p MP4 of the size asked for, without any audio stream unless bursts are given', () => {
    const path = makeWalkthrough(join(dir, 'silent.mp4'), { seconds: 3, width: 320, height: 180, objects: [] });
    const { streams, format } = probe(path);
    expect(streams).toHaveLength(1);
    expect(streams[0]).toMatchObject({ codec_name: 'h264', pix_fmt: 'yuv420p', width: 320, height: 180 });
    expect(Number(format.duration)).toBeCloseTo(3, 1);
    expect(frameRates(path)).toEqual([30]);
  });

  it('carries tone bursts on an AAC track that the fake provider hears at their times', async () => {
    const bursts: [number, number][] = [
      [1, 1.5],
      [3, 3.4],
      [5.2, 5.8],
    ];
    const path = makeWalkthrough(join(dir, 'sound.mp4'), { seconds: 7, objects: [], bursts });
    expect(probe(path).streams.map((s) => s.codec_name)).toEqual(['h264', 'aac']);
    const heard = await hear(path, ['one', 'two', 'three']);
    expect(heard.words.map((w) => w.word)).toEqual(['one', 'two', 'three']);
    heard.words.forEach((w, n) => {
      expect(Math.abs(w.start - bursts[n][0])).toBeLessThanOrEqual(TOLERANCE);
      expect(Math.abs(w.end - bursts[n][1])).toBeLessThanOrEqual(TOLERANCE);
    });
  });

  it('makes sparse keyframes and a phone-style variable frame rate when asked', () => {
    const sparse = makeWalkthrough(join(dir, 'sparse.mp4'), { seconds: 10, keyframeIntervalSeconds: 4, objects: [] });
    expect(keyframeTimes(sparse)).toEqual([0, 4, 8]);

    const vfr = makeWalkthrough(join(dir, 'vfr.mp4'), { seconds: 6, variableFrameRate: true, objects: [] });
    expect(frameRates(vfr).sort((a, b) => a - b)).toEqual([15, 30]);
    expect(Number(probe(vfr).format.duration)).toBeCloseTo(6, 0);
  });
});
