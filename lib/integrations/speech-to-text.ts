/**
 * Client of the speech-to-text provider: Deepgram's pre-recorded
 * transcription API (any endpoint speaking it can be configured by
 * TRANSCRIPTION_BASE_URL: a regional host, a proxy, the test fake).
 *
 *   POST {base_url}/v1/listen?model=<TRANSCRIPTION_MODEL>&smart_format=true&punctuate=true[&tag=<tag>]
 *     Authorization: Token <TRANSCRIPTION_API_KEY>   Content-Type: <the audio's type>   body: the audio bytes
 *   200 {metadata: {duration, ...},
 *        results: {channels: [{alternatives: [{transcript, confidence,
 *                  words: [{word, start, end, confidence, punctuated_word}]}]}]}}
 *   4xx/5xx {err_code, err_msg, request_id}
 *
 * Word timings come with every pre-recorded answer; smart_format and
 * punctuate make the transcript and each punctuated_word readable (the
 * segments are cut at sentence ends). One request carries one piece of
 * audio: long recordings are cut and stitched by transcript-stitching.ts.
 *
 * Fail-soft: without a key the call answers `{configured: false}` rather than
 * throwing, so a pipeline goes on visual-only with a warning. 5xx, 429,
 * timeouts, network errors and a 200 the client cannot read are retried with
 * jittered exponential backoff; any other status (401, 400, a redirect,
 * which is never followed, ...) fails at once, the provider's words in it
 * bounded and scrubbed (bodyExcerpt). A failure that is final throws
 * SpeechToTextError, which the pipeline turns into a warning too. A readable answer with no words (silence) is a
 * transcript, not a failure.
 */
import { baseUrl as normalizeBaseUrl, type Settings } from '../config';
import { logger } from '../observability/logger';
import {
  type AttemptFailure,
  attemptFailed,
  bodyExcerpt,
  clientKind,
  failureSummary,
  IntegrationError,
  isRecord,
  parseJson,
  statusFailed,
  transient,
} from '../observability/outbound-failures';
import { sendOutbound } from '../observability/outbound-http';
import type { TranscriptWord } from './transcript-stitching';

const LISTEN_PATH = '/v1/listen';
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_ATTEMPTS = 3;
const DEFAULT_BACKOFF_MS = 1000;
export interface Transcript {
  text: string;
  /** Relative to the start of the audio sent, in the provider's order. */
  words: TranscriptWord[];
  /** Seconds of audio the provider heard. */
  duration: number;
}

export type TranscriptionResult =
  | { configured: true; transcript: Transcript; attempts: number }
  | { configured: false; reason: string };

export interface TranscriptionRequest {
  audio: Uint8Array;
  /** The audio's media type, e.g. audio/wav, audio/mpeg, audio/mp4. */
  contentType: string;
  /** Sent as the provider's `tag` parameter (usage reports); e.g. the job id. */
  tag?: string;
}

type SpeechFailureKind = 'http' | 'timeout' | 'unreachable' | 'unreadable';

export class SpeechToTextError extends IntegrationError {
  override readonly name = 'SpeechToTextError';
  constructor(
    readonly kind: SpeechFailureKind,
    message: string,
    /** The last HTTP status received, null when none (timeout, network). */
    status: number | null,
    /** HTTP attempts made. */
    readonly attempts: number,
  ) {
    // A transcription changes nothing at the provider: repeating it is always safe.
    super('speech-to-text', message, status, transient(kind, status) || kind === 'unreadable', false);
  }
}

export interface SpeechToTextOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
  maxAttempts?: number;
  /** First backoff; doubles per retry, jittered. */
  backoffMs?: number;
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The provider's own words about a failure: err_msg (or message/details), else the start of the body. */
function providerMessage(body: unknown, text: string): string {
  if (isRecord(body)) {
    const said = [body.err_code ?? body.category, body.err_msg ?? body.message ?? body.details]
      .filter((v): v is string => typeof v === 'string' && v !== '')
      .join(': ');
    if (said) return bodyExcerpt(said) || 'no body';
  }
  return bodyExcerpt(text) || 'no body';
}

/** The transcript in a 200 body, or why it cannot be read. */
function readTranscript(body: unknown): Transcript | string {
  if (!isRecord(body) || !isRecord(body.results) || !Array.isArray(body.results.channels)) return 'no results.channels';
  const channel = body.results.channels[0];
  const alternative = isRecord(channel) && Array.isArray(channel.alternatives) ? channel.alternatives[0] : undefined;
  if (!isRecord(alternative)) return 'no alternative in the first channel';
  if (alternative.words !== undefined && !Array.isArray(alternative.words)) return 'words is not an array';
  const words: TranscriptWord[] = [];
  for (const w of (alternative.words ?? []) as unknown[]) {
    if (!isRecord(w) || !finite(w.start) || !finite(w.end)) return 'a word without start and end';
    const shown = typeof w.punctuated_word === 'string' && w.punctuated_word ? w.punctuated_word : w.word;
    if (typeof shown !== 'string') return 'a word without text';
    words.push({ word: shown, start: w.start, end: w.end, confidence: finite(w.confidence) ? w.confidence : 0 });
  }
  const text = typeof alternative.transcript === 'string' ? alternative.transcript.trim() : '';
  const heard = isRecord(body.metadata) && finite(body.metadata.duration) ? body.metadata.duration : null;
  return {
    text: text || words.map((w) => w.word).join(' '),
    words,
    duration: heard ?? words.reduce((end, w) => Math.max(end, w.end), 0),
  };
}

export class SpeechToTextClient {
  readonly baseUrl: string;
  readonly model: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;

  constructor(options: SpeechToTextOptions) {
    this.baseUrl = normalizeBaseUrl(options.baseUrl);
    this.apiKey = options.apiKey.trim();
    this.model = options.model.trim();
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS);
    this.backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  }

  /** A client from the settings (TRANSCRIPTION_BASE_URL, _API_KEY, _MODEL, _TIMEOUT_SECONDS, _RETRY_BACKOFF_MS). */
  static fromSettings(config: Settings, overrides: Partial<SpeechToTextOptions> = {}): SpeechToTextClient {
    return new SpeechToTextClient({
      baseUrl: config.TRANSCRIPTION_BASE_URL,
      apiKey: config.TRANSCRIPTION_API_KEY,
      model: config.TRANSCRIPTION_MODEL,
      timeoutMs: config.TRANSCRIPTION_TIMEOUT_SECONDS * 1000,
      backoffMs: config.TRANSCRIPTION_RETRY_BACKOFF_MS,
      ...overrides,
    });
  }

  get configured(): boolean {
    return Boolean(this.apiKey && this.baseUrl);
  }

  /** The request URL for one piece (public so tests can check it). */
  listenUrl(tag?: string): string {
    const query = new URLSearchParams({ model: this.model, smart_format: 'true', punctuate: 'true' });
    if (tag) query.set('tag', tag);
    return `${this.baseUrl}${LISTEN_PATH}?${query}`;
  }

  /**
   * Transcribes one piece of audio with retries. Unconfigured: `{configured:
   * false}`. Throws SpeechToTextError once the failure is final.
   */
  async transcribe(request: TranscriptionRequest): Promise<TranscriptionResult> {
    if (!this.configured)
      return {
        configured: false,
        reason: 'speech-to-text is not configured: TRANSCRIPTION_API_KEY (and TRANSCRIPTION_BASE_URL) must be set',
      };
    const result = await sendOutbound(
      {
        timeoutMs: this.timeoutMs,
        attempts: this.maxAttempts,
        backoffMs: this.backoffMs,
        onRetry: (failure, attempt) =>
          logger.warn('speech-to-text call failed; retrying', {
            tag: request.tag,
            attempt,
            kind: kindOf(failure),
            status: failure.status,
            detail: failure.message,
          }),
      },
      {
        url: this.listenUrl(request.tag),
        method: 'POST',
        headers: {
          authorization: `Token ${this.apiKey}`,
          'content-type': request.contentType,
          accept: 'application/json',
        },
        body: request.audio,
      },
      readAnswer,
    );
    if (result.ok) return { configured: true, transcript: result.value, attempts: result.attempts };
    const failure = { ...result.failure, kind: kindOf(result.failure) };
    throw new SpeechToTextError(
      failure.kind,
      failureSummary('speech-to-text', failure, result.attempts),
      failure.status,
      result.attempts,
    );
  }
}

/** One answer: the transcript, or AttemptFailed saying whether it is worth another. */
function readAnswer({ status, text, headers }: { status: number; text: string; headers: Headers }): Transcript {
  const parsed = parseJson(text);
  if (status < 200 || status >= 300) throw statusFailed(status, headers, providerMessage(parsed, text));
  // An empty or unreadable 200 is a broken answer, retried like a 5xx.
  const transcript = parsed === undefined ? (text ? 'body is not JSON' : 'empty body') : readTranscript(parsed);
  if (typeof transcript === 'string')
    throw attemptFailed({ kind: 'unreadable', status, message: transcript, retryable: true });
  return transcript;
}

/** The core's kinds of failure as this client's. */
const kindOf = (failure: AttemptFailure) => clientKind(failure.kind) as SpeechFailureKind;
