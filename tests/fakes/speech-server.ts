/**
 * A fake speech-to-text provider speaking Deepgram's pre-recorded contract
 * (lib/integrations/speech-to-text.ts), over real HTTP on 127.0.0.1 and a free
 * port. `url` is the base URL to configure as TRANSCRIPTION_BASE_URL.
 *
 *   POST /v1/listen?model=...   Authorization: Token <apiKey>   body: audio bytes
 *
 * - The words are heard in the audio: the body is decoded with ffmpeg
 *   (FFMPEG_PATH or ffmpeg on the PATH) to 16 kHz mono PCM, and every burst of
 *   sound (RMS above a threshold over 20 ms windows; gaps under 60 ms bridged,
 *   blips under 40 ms ignored) becomes one word whose start and end are the
 *   burst's. metadata.duration is the decoded length.
 * - The text of the words comes from a script: the first script whose `match`
 *   occurs in the request URL (tests pass a unique `tag`), else the script
 *   without a match, else a built-in list. Burst n takes word n (the list
 *   repeats when the audio has more bursts). A scripted word keeps its
 *   punctuation in punctuated_word; `word` is its lower-case bare form.
 * - failNext(mode, count, match?) makes the next `count` (matching) requests
 *   fail: 500, 503, 429, 400, 401, timeout (never answers), reset (socket
 *   destroyed), garbage (200, not JSON), empty (200, a well-formed answer with
 *   no words, as for silence).
 * - A wrong or missing `Authorization: Token <apiKey>` answers 401; audio that
 *   does not decode answers 400, with Deepgram's error body.
 * - Every listen request is recorded (`requests`), failed ones included.
 * - Control API for other processes (tests/support/fake-speech.ts):
 *     POST /__fake/script {match?, words}    POST /__fake/fail {mode, count?, match?}
 *     POST /__fake/latency {ms}              GET  /__fake/requests?match=...
 *     POST /__fake/hold {match, ms?}         POST /__fake/release {match}
 *     POST /__fake/reset
 * - hold(match, ms) keeps matching requests unanswered until release(match)
 *   or for `ms` at most (a minute by default), so a test can see the state a
 *   job is in while it waits.
 */
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { answerHoldControl, controlBody, listenFake, misbehave, readBytes, requestHolds, sendJson } from './http';

const FAILURE_MODES = ['500', '503', '429', '400', '401', 'timeout', 'reset', 'garbage', 'empty'] as const;
export type SpeechFailureMode = (typeof FAILURE_MODES)[number];

const LISTEN_PATH = '/v1/listen';
const SAMPLE_RATE = 16_000;
const WINDOW_SECONDS = 0.02;
/** RMS of a window, as a fraction of full scale, above which it is sound (about -34 dBFS). */
const RMS_THRESHOLD = 0.02;
const BRIDGE_SECONDS = 0.06;
const MIN_BURST_SECONDS = 0.04;
const WORD_CONFIDENCE = 0.98;
const DEFAULT_WORDS = ['sofa', 'lamp', 'television', 'table', 'chair', 'bookshelf', 'rug', 'mirror'];
const MODEL_UUID = '00000000-0000-4000-8000-000000000003';

export interface RecordedSpeechRequest {
  /** Path and query, e.g. /v1/listen?model=nova-3&smart_format=true&punctuate=true&tag=job-1. */
  url: string;
  query: Record<string, string>;
  content_type: string | null;
  bytes: number;
  /** Whether the Authorization header carried the right key. */
  authorized: boolean;
  /** Bursts heard in the audio (null when it was not decoded). */
  bursts: number | null;
  /** How it was answered: the HTTP status, or the failure mode injected. */
  answered: number | SpeechFailureMode;
  at: string;
}

export interface FakeSpeechServer {
  /** Base URL (the origin), e.g. http://127.0.0.1:41234; the control API lives here too. */
  url: string;
  apiKey: string;
  requests: RecordedSpeechRequest[];
  script(words: string[], match?: string): void;
  failNext(mode: SpeechFailureMode, count?: number, match?: string): void;
  setLatency(ms: number): void;
  /** Keep requests whose URL holds `match` unanswered until release(match), for `ms` at most. */
  hold(match: string, ms?: number): void;
  release(match: string): void;
  /** Forget recorded requests, scripts and pending failures; latency back to the start value. */
  reset(): void;
  stop(): Promise<void>;
}

interface Burst {
  start: number;
  end: number;
}

interface PendingFailure {
  mode: SpeechFailureMode;
  remaining: number;
  match?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (seconds: number) => Math.round(seconds * 1000) / 1000;

/** The audio as 16 kHz mono signed 16-bit samples; null when ffmpeg cannot decode it. */
async function decode(audio: Buffer): Promise<Int16Array | null> {
  const dir = await mkdtemp(join(tmpdir(), 'fake-speech-'));
  try {
    // A file, not a pipe: MP4/M4A audio with its index at the end needs a seekable input.
    const input = join(dir, 'audio');
    await writeFile(input, audio);
    const pcm = await new Promise<Buffer | null>((resolve) => {
      execFile(
        process.env.FFMPEG_PATH || 'ffmpeg',
        ['-v', 'error', '-nostdin', '-i', input, '-vn', '-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 's16le', '-'],
        { encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024 },
        (err, stdout) => resolve(err ? null : stdout),
      );
    });
    if (!pcm) return null;
    return new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.length / 2));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs of 20 ms windows louder than the threshold, as [start, end) in seconds. */
function bursts(samples: Int16Array): Burst[] {
  const size = Math.round(SAMPLE_RATE * WINDOW_SECONDS);
  const bridge = Math.round(SAMPLE_RATE * BRIDGE_SECONDS);
  const shortest = Math.round(SAMPLE_RATE * MIN_BURST_SECONDS);
  // In samples: [start, end) of each run of loud windows.
  const runs: { start: number; end: number }[] = [];
  let open: { start: number; end: number } | null = null;
  for (let at = 0; at < samples.length; at += size) {
    const end = Math.min(at + size, samples.length);
    let sum = 0;
    for (let i = at; i < end; i++) sum += (samples[i] / 32768) ** 2;
    const loud = Math.sqrt(sum / (end - at)) > RMS_THRESHOLD;
    if (loud && open) open.end = end;
    else if (loud) open = { start: at, end };
    else if (open && at + size - open.end > bridge) {
      runs.push(open);
      open = null;
    }
  }
  if (open) runs.push(open);
  return runs
    .filter((r) => r.end - r.start >= shortest)
    .map((r) => ({ start: round(r.start / SAMPLE_RATE), end: round(r.end / SAMPLE_RATE) }));
}

/** Deepgram's pre-recorded answer for these words. */
function listenAnswer(audio: Buffer, duration: number, words: { word: string; start: number; end: number }[]) {
  const heard = words.map((w) => ({
    word: w.word.toLowerCase().replace(/[^\p{L}\p{N}'-]+/gu, ''),
    start: w.start,
    end: w.end,
    confidence: WORD_CONFIDENCE,
    punctuated_word: w.word,
  }));
  return {
    metadata: {
      transaction_key: 'deprecated',
      request_id: randomUUID(),
      sha256: createHash('sha256').update(audio).digest('hex'),
      created: new Date().toISOString(),
      duration: round(duration),
      channels: 1,
      models: [MODEL_UUID],
      model_info: { [MODEL_UUID]: { name: 'general-nova-3', version: '2025-01-01.0', arch: 'nova-3' } },
    },
    results: {
      channels: [
        {
          alternatives: [
            {
              transcript: heard.map((w) => w.punctuated_word).join(' '),
              confidence: heard.length ? WORD_CONFIDENCE : 0,
              words: heard,
            },
          ],
        },
      ],
    },
  };
}

const providerError = (res: ServerResponse, status: number, code: string, message: string) =>
  sendJson(res, status, { err_code: code, err_msg: message, request_id: randomUUID() });

export async function startFakeSpeechServer(
  options: { apiKey?: string; latencyMs?: number; port?: number } = {},
): Promise<FakeSpeechServer> {
  const apiKey = options.apiKey ?? 'fake-speech-key';
  const startLatency = options.latencyMs ?? 0;
  let latencyMs = startLatency;
  const scripts: { match?: string; words: string[] }[] = [];
  const failures: PendingFailure[] = [];
  const requests: RecordedSpeechRequest[] = [];
  const holds = requestHolds();
  const { hold, release } = holds;
  const heldBack = holds.heldBack;

  function script(words: string[], match?: string) {
    if (!Array.isArray(words) || words.length === 0 || !words.every((w) => typeof w === 'string' && w.trim()))
      throw new Error('words must be a non-empty array of non-empty strings');
    if (match !== undefined && (typeof match !== 'string' || !match))
      throw new Error('match must be a non-empty string');
    const existing = scripts.find((s) => s.match === match);
    if (existing) existing.words = words;
    else scripts.push({ match, words });
  }

  function failNext(mode: SpeechFailureMode, count = 1, match?: string) {
    if (!FAILURE_MODES.includes(mode)) throw new Error(`mode must be one of ${FAILURE_MODES.join(', ')}`);
    if (!(Number.isInteger(count) && count >= 1)) throw new Error('count must be a positive integer');
    failures.push({ mode, remaining: count, match: match || undefined });
  }

  function setLatency(ms: number) {
    if (!(typeof ms === 'number' && ms >= 0)) throw new Error('ms must be a number >= 0');
    latencyMs = ms;
  }

  function reset() {
    requests.length = 0;
    scripts.length = 0;
    failures.length = 0;
    holds.releaseAll();
    latencyMs = startLatency;
  }

  function takeFailure(url: string): SpeechFailureMode | null {
    const index = failures.findIndex((f) => !f.match || url.includes(f.match));
    if (index < 0) return null;
    const failure = failures[index];
    failure.remaining -= 1;
    if (failure.remaining <= 0) failures.splice(index, 1);
    return failure.mode;
  }

  function wordsFor(url: string): string[] {
    return (
      scripts.find((s) => s.match && url.includes(s.match))?.words ??
      scripts.find((s) => !s.match)?.words ??
      DEFAULT_WORDS
    );
  }

  /** Answers with an injected failure ('timeout' never answers). */
  function fail(mode: SpeechFailureMode, req: IncomingMessage, res: ServerResponse, audio: Buffer) {
    switch (mode) {
      case '500':
      case '503':
        return providerError(res, Number(mode), 'INTERNAL_SERVER_ERROR', 'upstream error (injected)');
      case '429':
        return providerError(res, 429, 'TOO_MANY_REQUESTS', 'rate limited (injected)');
      case '400':
        return providerError(res, 400, 'Bad Request', 'bad request (injected)');
      case '401':
        return providerError(res, 401, 'INVALID_AUTH', 'Invalid credentials.');
      case 'empty':
        return sendJson(res, 200, listenAnswer(audio, 0, []));
      case 'garbage':
      case 'reset':
      case 'timeout':
        return misbehave(server, mode, req, res);
    }
  }

  async function listen(req: IncomingMessage, res: ServerResponse, url: URL, audio: Buffer) {
    const record: RecordedSpeechRequest = {
      url: `${url.pathname}${url.search}`,
      query: Object.fromEntries(url.searchParams),
      content_type: req.headers['content-type'] ?? null,
      bytes: audio.length,
      authorized: req.headers.authorization === `Token ${apiKey}`,
      bursts: null,
      answered: 0,
      at: new Date().toISOString(),
    };
    requests.push(record);
    const injected = takeFailure(record.url);
    if (injected !== 'timeout' && latencyMs > 0) await sleep(latencyMs);
    if (injected !== 'timeout') await heldBack(record.url);
    if (injected) {
      record.answered = injected;
      fail(injected, req, res, audio);
      return;
    }
    if (!record.authorized) {
      record.answered = providerError(res, 401, 'INVALID_AUTH', 'Invalid credentials.');
      return;
    }
    const samples = audio.length ? await decode(audio) : null;
    if (!samples) {
      record.answered = providerError(
        res,
        400,
        'Bad Request',
        'Bad Request: failed to process audio: corrupt or unsupported data',
      );
      return;
    }
    const heard = bursts(samples);
    record.bursts = heard.length;
    const script = wordsFor(record.url);
    const words = heard.map((b, n) => ({ word: script[n % script.length], start: b.start, end: b.end }));
    record.answered = sendJson(res, 200, listenAnswer(audio, samples.length / SAMPLE_RATE, words));
  }

  function control(path: string, method: string, query: URLSearchParams, raw: string, res: ServerResponse) {
    const body = controlBody(raw);
    if (!body) return sendJson(res, 400, { error: 'body must be JSON' });
    try {
      if (method === 'POST' && path === '/__fake/script') {
        script(body.words as string[], body.match as string | undefined);
        return sendJson(res, 200, { ok: true });
      }
      if (method === 'POST' && path === '/__fake/fail') {
        failNext(
          body.mode as SpeechFailureMode,
          body.count === undefined ? 1 : (body.count as number),
          typeof body.match === 'string' ? body.match : undefined,
        );
        return sendJson(res, 200, { ok: true });
      }
      if (method === 'POST' && path === '/__fake/latency') {
        setLatency(body.ms as number);
        return sendJson(res, 200, { ok: true });
      }
      if (answerHoldControl({ hold, release }, { method, path, body }, res)) return;
      if (method === 'GET' && path === '/__fake/requests') {
        const match = query.get('match');
        return sendJson(res, 200, match ? requests.filter((r) => r.url.includes(match)) : requests);
      }
      if (method === 'POST' && path === '/__fake/reset') {
        reset();
        return sendJson(res, 200, { ok: true });
      }
    } catch (err) {
      return sendJson(res, 400, { error: (err as Error).message });
    }
    return sendJson(res, 404, { error: 'not_found' });
  }

  const server = await listenFake(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://fake');
      const body = await readBytes(req);
      if (url.pathname.startsWith('/__fake/')) {
        control(url.pathname, req.method ?? 'GET', url.searchParams, body.toString('utf8'), res);
        return;
      }
      if (req.method === 'POST' && url.pathname === LISTEN_PATH) {
        await listen(req, res, url, body);
        return;
      }
      providerError(res, 404, 'NOT_FOUND', 'not found');
    } catch (err) {
      if (!res.headersSent) providerError(res, 500, 'INTERNAL_SERVER_ERROR', String(err));
    }
  }, options.port);

  return {
    url: server.url,
    apiKey,
    requests,
    script,
    failNext,
    setLatency,
    hold,
    release,
    reset,
    stop: () => server.close(),
  };
}
