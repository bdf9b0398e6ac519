/**
 * Drives the fake speech-to-text provider (tests/fakes/speech-server.ts)
 * through its HTTP control API, from any process, and makes audio it can
 * hear. The fake is shared by the whole run (TEST_FAKE_SPEECH_URL): scope
 * scripts and failures with a match string unique to the test (the client's
 * `tag`) rather than reset().
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { RecordedSpeechRequest, SpeechFailureMode } from '../fakes/speech-server';
import { controlCaller } from './fake-control';

export interface FakeSpeechControl {
  origin: string;
  /** The words the bursts of matching requests (all unmatched ones without `match`) are heard as. */
  script(words: string[], match?: string): Promise<void>;
  failNext(mode: SpeechFailureMode, count?: number, match?: string): Promise<void>;
  setLatency(ms: number): Promise<void>;
  /** Keep matching requests unanswered until release(match), for `ms` at most. */
  hold(match: string, ms?: number): Promise<void>;
  release(match: string): Promise<void>;
  requests(match?: string): Promise<RecordedSpeechRequest[]>;
  reset(): Promise<void>;
}

export function fakeSpeech(url: string): FakeSpeechControl {
  const origin = new URL(url).origin;

  const call = controlCaller(origin, 'fake speech-to-text');

  return {
    origin,
    script: async (words, match) => void (await call('POST', '/__fake/script', { words, ...(match ? { match } : {}) })),
    failNext: async (mode, count = 1, match) =>
      void (await call('POST', '/__fake/fail', { mode, count, ...(match ? { match } : {}) })),
    setLatency: async (ms) => void (await call('POST', '/__fake/latency', { ms })),
    hold: async (match, ms) => void (await call('POST', '/__fake/hold', { match, ...(ms ? { ms } : {}) })),
    release: async (match) => void (await call('POST', '/__fake/release', { match })),
    requests: (match) =>
      call<RecordedSpeechRequest[]>('GET', `/__fake/requests${match ? `?match=${encodeURIComponent(match)}` : ''}`),
    reset: async () => void (await call('POST', '/__fake/reset')),
  };
}

/**
 * Real audio made with ffmpeg: `seconds` of silence with a 440 Hz tone during
 * each [start, end) burst, encoded by the file extension of `path` (.wav,
 * .m4a, .mp3, ...). The fake hears one word per burst.
 */
export function makeToneBursts(path: string, bursts: [number, number][], seconds: number): Buffer {
  const ffmpeg = process.env.FFMPEG_PATH || 'ffmpeg';
  const on = bursts.map(([start, end]) => `(gte(t,${start})*lt(t,${end}))`).join('+') || '0';
  execFileSync(ffmpeg, [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `aevalsrc='0.5*sin(2*PI*440*t)*(${on})':s=16000:d=${seconds}`,
    '-ac',
    '1',
    path,
  ]);
  return readFileSync(path);
}
