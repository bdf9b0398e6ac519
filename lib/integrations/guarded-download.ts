/**
 * Downloads of URLs another system hands us (the capture source's signed
 * media URLs), guarded like every other outbound call and more, since the
 * URL itself is not ours:
 *  - only http(s) URLs on the allow-list's hosts (./download-rules.ts);
 *    redirects are followed by hand, each checked before it is fetched;
 *  - only public addresses (./address-rules.ts): every address a name
 *    resolves to is checked as the connection is made, with the very answer
 *    it connects to, so a name cannot pass the check and then resolve
 *    elsewhere;
 *  - an answer within connectTimeoutMs (connecting and the headers), each
 *    next piece of the body within stallTimeoutMs, the whole download
 *    (redirects, retries and body) within totalTimeoutMs;
 *  - at most maxBytes: a Content-Length above it is refused before a byte is
 *    read, a body that runs past it is stopped there;
 *  - network failures, timeouts before the answer, 5xx and 429 (Retry-After
 *    honoured) are retried with jittered backoff while the deadline allows;
 *    anything else is final.
 * The requests, retries and redirects are the outbound core's
 * (lib/observability/outbound-http.ts), with this file's address guard as its
 * connection pool and its URL checks as its redirect policy.
 * Every failure ends in DownloadFailed, whose message is a sentence for the
 * user naming URLs by their origin only (a signed URL's query is a
 * credential). The body is a byte stream, never buffered here, so a
 * recording can go straight to the bucket.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStreamReadResult } from 'node:stream/web';
import { Agent } from 'undici';
import type { HostRule } from '../config';
import { logger } from '../observability/logger';
import {
  type AttemptFailure,
  attemptFailed,
  IntegrationError,
  networkCause,
  statusFailed,
} from '../observability/outbound-failures';
import { sendOutbound } from '../observability/outbound-http';
import { undiciFetch } from '../observability/outbound-undici';
import { addressProblem } from './address-rules';
import { checkedUrl, originOf, redirectTarget } from './download-rules';

const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_ATTEMPTS = 3;
const DEFAULT_BACKOFF_MS = 300;

export interface DownloadGuard {
  /** Who hands out the URLs, as reasons name it: "the capture source". */
  source: string;
  hosts: readonly HostRule[];
  maxBytes: number;
  /** maxBytes as a reason says it: "the 1234 bytes the capture source declared". */
  maxBytesWords: string;
  /** Until the answer's headers (default 10 s). */
  connectTimeoutMs?: number;
  /** Longest wait for the next piece of the body. */
  stallTimeoutMs: number;
  /** The whole download: redirects, retries, pauses and body. */
  totalTimeoutMs: number;
  /** Attempts in all (default 3). */
  attempts?: number;
  /** Pause before the first retry (default 300 ms); doubles per retry, jittered. */
  backoffMs?: number;
  /** Name resolution: the system's by default (tests answer the addresses they need). */
  resolve?: Resolve;
}

type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true });

/** A connection refused for the address its host resolved to: nothing was sent. */
class AddressRefused extends Error {
  override readonly name = 'AddressRefused';
}

/**
 * The lookup a connection makes: the name resolved, and refused when any of
 * its addresses may not be reached (one bad answer among good ones is
 * enough to distrust the name).
 */
function checkedLookup(resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    const answer = callback as (err: Error | null, address?: unknown, family?: number) => void;
    resolve(hostname).then(
      (all) => {
        const problem = all.map(({ address }) => addressProblem(hostname, address)).find(Boolean);
        if (problem) return answer(new AddressRefused(problem));
        const usable = options.family ? all.filter((a) => a.family === options.family) : all;
        if (usable.length === 0)
          return answer(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }));
        if (options.all) return answer(null, usable);
        return answer(null, usable[0].address, usable[0].family);
      },
      (err: Error) => answer(err),
    );
  };
}

/** One connection pool per resolver (in the service, one: the system's). */
const agents = new Map<Resolve, Agent>();
function agentFor(resolve: Resolve): Agent {
  let agent = agents.get(resolve);
  if (!agent) {
    agent = new Agent({ connect: { lookup: checkedLookup(resolve) } });
    agents.set(resolve, agent);
  }
  return agent;
}

/** The refusal a failed fetch carries in its causes, if an address was refused. */
function addressRefusalOf(err: unknown): AddressRefused | null {
  for (let cause = err, depth = 0; cause && depth < 5; depth++) {
    if (cause instanceof AddressRefused) return cause;
    cause = (cause as { cause?: unknown }).cause;
  }
  return null;
}

/** A download that did not happen or was stopped; the message says why, for the user. */
export class DownloadFailed extends IntegrationError {
  override readonly name = 'DownloadFailed';
  constructor(message: string, status: number | null = null, retryable = false) {
    // A download is a GET: nothing it does can have been applied.
    super('download', message, status, retryable, false);
  }
}

export interface Download {
  contentType: string | null;
  /** The body's bytes: it fails with DownloadFailed when a guard stops it. */
  body: Readable;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

const final = (message: string, status: number | null = null) =>
  attemptFailed({ kind: 'refused', status, message, retryable: false });

/** The reason of a download that failed before its body: what the last attempt met, and the attempts made. */
function failedSentence(failure: AttemptFailure, attempts: number): string {
  if (failure.kind === 'refused') return `Download refused: ${failure.message}.`;
  const tried = failure.retryable && attempts > 1 ? ` after ${attempts} attempts` : '';
  return `Download failed: ${failure.message}${tried}.`;
}

/** One download: its deadline, and whether the body's read was stopped for stalling. */
class Transfer {
  private readonly total = new AbortController();
  private readonly totalTimer: NodeJS.Timeout;
  private readonly stall = new AbortController();
  private stalled = false;

  constructor(private readonly guard: DownloadGuard) {
    this.totalTimer = setTimeout(() => this.total.abort(), guard.totalTimeoutMs);
    // A body never read must not keep the process alive.
    this.totalTimer.unref();
  }

  end() {
    clearTimeout(this.totalTimer);
  }

  private get tookTooLong() {
    return `it took longer than ${seconds(this.guard.totalTimeoutMs)}`;
  }

  /** The first acceptable answer, retried and redirected as the guard allows; its body unread. */
  async answer(first: URL): Promise<Response> {
    const { guard } = this;
    const result = await sendOutbound(
      {
        // Until the answer's headers, each redirect's request on its own.
        timeoutMs: guard.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        attempts: guard.attempts ?? DEFAULT_ATTEMPTS,
        backoffMs: guard.backoffMs ?? DEFAULT_BACKOFF_MS,
        dispatcher: agentFor(guard.resolve ?? systemResolve),
        fetch: undiciFetch,
        followRedirect: (location, from, hops) => redirectTarget(location, from, hops, guard.hosts, guard.source),
        refusal: (err) => addressRefusalOf(err)?.message ?? null,
        stoppedWords: () => this.tookTooLong,
        timeoutWords: (ms, url) => `${originOf(new URL(url))} did not answer within ${seconds(ms)}`,
        networkWords: (err, url) => `${originOf(new URL(url))} could not be reached (${networkCause(err)})`,
        onRetry: ({ kind, status, message }, attempt) =>
          logger.warn(`${guard.source} download failed; retrying`, {
            origin: originOf(first),
            attempt,
            kind: kind === 'network' ? 'unreachable' : kind,
            status,
            detail: message,
          }),
      },
      // The stall signal stops the body's read later (chunks); the total one, everything.
      { url: first, signal: AbortSignal.any([this.total.signal, this.stall.signal]), stream: true },
      ({ response }) => this.accepted(response),
    );
    if (result.ok) return result.value;
    const { failure } = result;
    throw new DownloadFailed(failedSentence(failure, result.attempts), failure.status, failure.retryable);
  }

  /** A 2xx whose declared length fits; anything else an AttemptFailed. */
  private async accepted(res: Response): Promise<Response> {
    const { maxBytes, maxBytesWords } = this.guard;
    if (res.status >= 200 && res.status < 300) {
      const length = Number(res.headers.get('content-length') ?? Number.NaN);
      if (!(length > maxBytes)) return res;
      await res.body?.cancel().catch(() => undefined);
      throw final(`its answer is ${length} bytes, more than ${maxBytesWords}`, res.status);
    }
    await res.body?.cancel().catch(() => undefined);
    throw statusFailed(res.status, res.headers, `HTTP ${res.status}`);
  }

  /** The body's pieces, each within the stall timeout and all within maxBytes and the deadline. */
  async *chunks(res: Response): AsyncGenerator<Buffer> {
    const { maxBytes, maxBytesWords, stallTimeoutMs } = this.guard;
    const reader = res.body?.getReader();
    let received = 0;
    try {
      while (reader) {
        const stall = setTimeout(() => {
          this.stalled = true;
          this.stall.abort();
        }, stallTimeoutMs);
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await reader.read();
        } catch (err) {
          if (this.total.signal.aborted) throw new DownloadFailed(`Download stopped: ${this.tookTooLong}.`);
          if (this.stalled)
            throw new DownloadFailed(
              `Download stopped: no bytes for ${seconds(stallTimeoutMs)}; the transfer stalled.`,
            );
          throw new DownloadFailed(`Download stopped: the connection failed (${networkCause(err)}).`);
        } finally {
          clearTimeout(stall);
        }
        if (step.done) return;
        received += step.value.byteLength;
        if (received > maxBytes) throw new DownloadFailed(`Download stopped: more than ${maxBytesWords} arrived.`);
        yield Buffer.from(step.value.buffer, step.value.byteOffset, step.value.byteLength);
      }
    } finally {
      this.end();
      // Stopped early (a guard, or the reader gave up): the connection is dropped, nothing more is read.
      await reader?.cancel().catch(() => undefined);
    }
  }
}

/**
 * Opens a download: the URL checked, its answer awaited (retries and
 * redirects within the guard), its body a guarded byte stream. Throws
 * DownloadFailed when it cannot start; the body fails with it when a guard
 * stops it.
 */
export async function openDownload(rawUrl: string, guard: DownloadGuard): Promise<Download> {
  const first = checkedUrl(rawUrl, guard.hosts, guard.source);
  if (typeof first === 'string') throw new DownloadFailed(`Download refused: ${first}; nothing was fetched.`);
  const transfer = new Transfer(guard);
  try {
    const res = await transfer.answer(first);
    return {
      contentType: res.headers.get('content-type'),
      body: Readable.from(transfer.chunks(res), { objectMode: false }),
    };
  } catch (err) {
    transfer.end();
    throw err;
  }
}

/** A whole (small) download in memory, under the same guards. */
export async function downloadBytes(url: string, guard: DownloadGuard): Promise<Buffer> {
  const { body } = await openDownload(url, guard);
  const pieces: Buffer[] = [];
  for await (const piece of body) pieces.push(piece as Buffer);
  return Buffer.concat(pieces);
}
