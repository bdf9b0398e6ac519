/**
 * The speech-to-text client against the run's fake provider over real HTTP,
 * on audio made with ffmpeg at test time: word timings heard from tone bursts
 * at known times, retries on 5xx/429/resets/unreadable answers, 401 and 400
 * not retried, timeouts bounded, an empty result, and the not-configured
 * answer without a key. Each test scopes the fake with its own `tag`.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSettings } from '../../lib/config';
import {
  SpeechToTextClient,
  SpeechToTextError,
  type Transcript,
  type TranscriptionResult,
} from '../../lib/integrations/speech-to-text';
import { logger } from '../../lib/observability/logger';
import { segmentWords, stitchPieces } from '../../lib/integrations/transcript-stitching';
import { planAudioPieces } from '../../lib/media/extraction-rules';
import { fakeSpeech, makeToneBursts } from '../support/fake-speech';

const speech = fakeSpeech(process.env.TEST_FAKE_SPEECH_URL as string);
const BURSTS: [number, number][] = [
  [1.0, 1.4],
  [3.0, 3.5],
  [6.0, 6.3],
];
const TOLERANCE = 0.05;

let dir: string;
let wav: Buffer;
let warn: jest.SpyInstance;

/** The client exactly as the service builds it from its settings (the fake's URL and key, short timeout and backoff). */
const client = (overrides: Parameters<typeof SpeechToTextClient.fromSettings>[1] = {}) =>
  SpeechToTextClient.fromSettings(loadSettings(), overrides);

const uniqueTag = () => `job-${randomUUID()}`;

function transcriptOf(result: TranscriptionResult): Transcript {
  if (!result.configured) throw new Error(`not configured: ${result.reason}`);
  return result.transcript;
}

async function failure(promise: Promise<unknown>): Promise<SpeechToTextError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof SpeechToTextError) return err;
    throw err;
  }
  throw new Error('expected a SpeechToTextError');
}

function expectBurstTimings(transcript: Transcript, offset = 0) {
  expect(transcript.words).toHaveLength(BURSTS.length);
  transcript.words.forEach((word, n) => {
    expect(Math.abs(word.start - (BURSTS[n][0] - offset))).toBeLessThanOrEqual(TOLERANCE);
    expect(Math.abs(word.end - (BURSTS[n][1] - offset))).toBeLessThanOrEqual(TOLERANCE);
  });
}

beforeAll(() => {
  warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
  dir = mkdtempSync(join(tmpdir(), 'speech-to-text-test-'));
  wav = makeToneBursts(join(dir, 'bursts.wav'), BURSTS, 7);
});

afterAll(() => {
  warn.mockRestore();
  rmSync(dir, { recursive: true, force: true });
});

describe('speech-to-text client against the fake provider', () => {
  it('hears one word per tone burst, at the burst times, through the provider contract', async () => {
    const tag = uniqueTag();
    await speech.script(['A', 'leather', 'sofa.'], tag);
    const result = await client().transcribe({ audio: wav, contentType: 'audio/wav', tag });
    expect(result).toMatchObject({ configured: true, attempts: 1 });
    const transcript = transcriptOf(result);
    expectBurstTimings(transcript);
    expect(transcript.words.map((w) => w.word)).toEqual(['A', 'leather', 'sofa.']);
    expect(transcript.words.every((w) => w.confidence > 0 && w.confidence <= 1)).toBe(true);
    expect(transcript.text).toBe('A leather sofa.');
    expect(Math.abs(transcript.duration - 7)).toBeLessThanOrEqual(TOLERANCE);
    expect(segmentWords(transcript.words).map((s) => s.text)).toEqual(['A', 'leather', 'sofa.']);

    const [request] = await speech.requests(tag);
    expect(request).toMatchObject({
      query: { model: 'nova-3', smart_format: 'true', punctuate: 'true', tag },
      content_type: 'audio/wav',
      bytes: wav.length,
      authorized: true,
      bursts: 3,
      answered: 200,
    });
    expect(request.url.startsWith('/v1/listen?')).toBe(true);
  });

  it('hears compressed audio (AAC in M4A) at the same times', async () => {
    const tag = uniqueTag();
    const m4a = makeToneBursts(join(dir, 'bursts.m4a'), BURSTS, 7);
    const transcript = transcriptOf(await client().transcribe({ audio: m4a, contentType: 'audio/mp4', tag }));
    expectBurstTimings(transcript);
    // Unscripted requests hear the fake's default words.
    expect(transcript.text).toBe('sofa lamp television');
  });

  it('answers a well-formed empty transcript for silence', async () => {
    const silence = makeToneBursts(join(dir, 'silence.wav'), [], 3);
    const transcript = transcriptOf(
      await client().transcribe({ audio: silence, contentType: 'audio/wav', tag: uniqueTag() }),
    );
    expect(transcript.words).toEqual([]);
    expect(transcript.text).toBe('');
    expect(Math.abs(transcript.duration - 3)).toBeLessThanOrEqual(TOLERANCE);
  });

  it("takes the provider's empty result as a transcript with no words, without retrying", async () => {
    const tag = uniqueTag();
    await speech.failNext('empty', 1, tag);
    const result = await client().transcribe({ audio: wav, contentType: 'audio/wav', tag });
    expect(result).toMatchObject({ configured: true, attempts: 1, transcript: { text: '', words: [] } });
    expect(await speech.requests(tag)).toHaveLength(1);
  });

  it('retries 5xx answers and then succeeds', async () => {
    const tag = uniqueTag();
    await speech.failNext('500', 1, tag);
    await speech.failNext('503', 1, tag);
    const result = await client().transcribe({ audio: wav, contentType: 'audio/wav', tag });
    expect(result).toMatchObject({ configured: true, attempts: 3 });
    expectBurstTimings(transcriptOf(result));
    expect((await speech.requests(tag)).map((r) => r.answered)).toEqual(['500', '503', 200]);
    expect(warn).toHaveBeenCalledWith(
      'speech-to-text call failed; retrying',
      expect.objectContaining({ tag, attempt: 2, kind: 'http', status: 503 }),
    );
  });

  it('retries a reset connection, a 429 and an unreadable 200', async () => {
    const tag = uniqueTag();
    await speech.failNext('reset', 1, tag);
    await speech.failNext('429', 1, tag);
    await speech.failNext('garbage', 1, tag);
    const result = await client({ maxAttempts: 4 }).transcribe({ audio: wav, contentType: 'audio/wav', tag });
    expect(result).toMatchObject({ configured: true, attempts: 4 });
    expect((await speech.requests(tag)).map((r) => r.answered)).toEqual(['reset', '429', 'garbage', 200]);
  });

  it('gives up after the last attempt with a typed error naming the failure', async () => {
    const tag = uniqueTag();
    await speech.failNext('503', 5, tag);
    const error = await failure(client({ maxAttempts: 3 }).transcribe({ audio: wav, contentType: 'audio/wav', tag }));
    expect(error).toMatchObject({ kind: 'http', status: 503, attempts: 3 });
    expect(error.message).toMatch(/HTTP 503\) after 3 attempts: INTERNAL_SERVER_ERROR: upstream error/);
    expect(await speech.requests(tag)).toHaveLength(3);
  });

  it('does not retry a 401 (injected or from a wrong key)', async () => {
    const tag = uniqueTag();
    await speech.failNext('401', 1, tag);
    const injected = await failure(client().transcribe({ audio: wav, contentType: 'audio/wav', tag }));
    expect(injected).toMatchObject({ kind: 'http', status: 401, attempts: 1 });

    const wrongKey = uniqueTag();
    const error = await failure(
      client({ apiKey: 'not-the-key' }).transcribe({ audio: wav, contentType: 'audio/wav', tag: wrongKey }),
    );
    expect(error).toMatchObject({ kind: 'http', status: 401, attempts: 1 });
    expect(error.message).toContain('INVALID_AUTH');
    expect(await speech.requests(wrongKey)).toMatchObject([{ authorized: false, answered: 401 }]);
  });

  it('does not retry a 400 for audio the provider cannot decode', async () => {
    const tag = uniqueTag();
    const error = await failure(
      client().transcribe({ audio: Buffer.from('not audio at all'), contentType: 'audio/wav', tag }),
    );
    expect(error).toMatchObject({ kind: 'http', status: 400, attempts: 1 });
    expect(error.message).toContain('corrupt or unsupported data');
  });

  it('bounds a provider that never answers by the timeout of each attempt', async () => {
    const tag = uniqueTag();
    await speech.failNext('timeout', 2, tag);
    const started = Date.now();
    const error = await failure(
      client({ timeoutMs: 400, maxAttempts: 2 }).transcribe({ audio: wav, contentType: 'audio/wav', tag }),
    );
    const elapsed = Date.now() - started;
    expect(error).toMatchObject({ kind: 'timeout', status: null, attempts: 2 });
    expect(elapsed).toBeGreaterThanOrEqual(800);
    expect(elapsed).toBeLessThan(2500);
  });

  it('waits while the fake holds its answer, and gets it once released (or when the hold runs out)', async () => {
    const tag = uniqueTag();
    await speech.hold(tag, 20_000);
    let answered = false;
    const pending = client()
      .transcribe({ audio: wav, contentType: 'audio/wav', tag })
      .then((result) => {
        answered = true;
        return result;
      });
    // The request has reached the fake (it is recorded on arrival) and stays unanswered.
    while ((await speech.requests(tag)).length === 0) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 500));
    expect(answered).toBe(false);
    await speech.release(tag);
    expectBurstTimings(transcriptOf(await pending));

    const other = uniqueTag();
    await speech.hold(other, 300);
    expectBurstTimings(transcriptOf(await client().transcribe({ audio: wav, contentType: 'audio/wav', tag: other })));
    expect(await speech.requests(other)).toHaveLength(1);
  });

  it('answers "not configured" without a key, and sends nothing', async () => {
    const tag = uniqueTag();
    const unconfigured = SpeechToTextClient.fromSettings(loadSettings({ overrides: { TRANSCRIPTION_API_KEY: '' } }));
    expect(unconfigured.configured).toBe(false);
    const result = await unconfigured.transcribe({ audio: wav, contentType: 'audio/wav', tag });
    expect(result).toEqual({ configured: false, reason: expect.stringContaining('TRANSCRIPTION_API_KEY') });
    expect(await speech.requests(tag)).toEqual([]);
  });

  it('transcribes a recording in overlapping pieces and stitches the words back on its clock', async () => {
    const tag = uniqueTag();
    // What a speaker would say in each piece: the burst in the overlap is heard by both.
    await speech.script(['one', 'two'], `${tag}-0`);
    await speech.script(['two', 'three.'], `${tag}-1`);
    const pieces = planAudioPieces(7, 0, { maxSeconds: 4, maxBytes: Number.POSITIVE_INFINITY, overlapSeconds: 1 });
    expect(pieces).toEqual([
      { offsetSeconds: 0, durationSeconds: 4 },
      { offsetSeconds: 3, durationSeconds: 4 },
    ]);
    const stt = client();
    const transcribed = [];
    for (const [index, piece] of pieces.entries()) {
      const path = join(dir, `piece-${index}.wav`);
      execFileSync(process.env.FFMPEG_PATH || 'ffmpeg', [
        '-v',
        'error',
        '-y',
        '-ss',
        String(piece.offsetSeconds),
        '-t',
        String(piece.durationSeconds),
        '-i',
        join(dir, 'bursts.wav'),
        path,
      ]);
      const transcript = transcriptOf(
        await stt.transcribe({ audio: readFileSync(path), contentType: 'audio/wav', tag: `${tag}-${index}` }),
      );
      transcribed.push({ ...transcript, offset: piece.offsetSeconds, duration: piece.durationSeconds });
    }
    // The 3.0-3.5 s burst is heard by both pieces (ending the first); stitching keeps it once.
    expect(transcribed.map((t) => t.words.length)).toEqual([2, 2]);
    const stitched = stitchPieces(transcribed);
    expectBurstTimings(stitched);
    expect(stitched.words.map((w) => w.word)).toEqual(['one', 'two', 'three.']);
    expect(stitched.text).toBe('one two three.');
    expect(Math.abs(stitched.duration - 7)).toBeLessThanOrEqual(TOLERANCE);
  });
});
