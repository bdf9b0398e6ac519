/**
 * Every read of an untrusted PDF runs in a child process of its own, with a
 * hard ceiling on its memory and on the time each step may take. The
 * reader's own limits (./reading-limits.ts) refuse the documents they know
 * of; this holds against the ones they do not: a parser path nobody
 * guarded, the next library bug. A child that passes its resident memory
 * (sampled every few ms from /proc, and its V8 heap capped below it) or its
 * time is killed, and the read fails with PdfUnreadable 'too_large' naming
 * the ceiling, so the import records the document as failed with that reason
 * while the worker, which never held what the document made, goes on.
 *
 * The child runs functions/sandbox/pdf-reader (./sandbox-child.ts); the
 * packaging puts that bundle beside every function that reads PDFs.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { settings as currentSettings, type Settings } from '../config';
import type { PdfImagePlacement, PdfBox } from './layout';
import type { OpenOptions, PdfReader } from './reader';
import {
  BROKEN_BY_DOCUMENT_EXIT,
  type CrossingError,
  type FromChild,
  type SandboxedMethod,
  type ToChild,
} from './sandbox-protocol';
import { PdfUnreadable } from './unreadable';

export interface SandboxLimits {
  /** Resident memory the child may reach, in MB. */
  memoryMb: number;
  /** Wall time the open, and each call after it, may take, in seconds. */
  seconds: number;
  /** The child's entry script (absolute). */
  entry: string;
}

/** How often the child's resident memory is read. */
const SAMPLE_MS = 20;

/** The part of the ceiling the child's V8 heap may take; the rest is for its buffers and native allocations. */
const HEAP_SHARE = 0.75;

/** The limits from the settings (PDF_SANDBOX_*); a relative entry is found under the function's root. */
function sandboxLimits(
  config: Pick<Settings, 'PDF_SANDBOX_MEMORY_MB' | 'PDF_SANDBOX_SECONDS' | 'PDF_SANDBOX_ENTRY'> = currentSettings(),
): SandboxLimits {
  const root = process.env.LAMBDA_TASK_ROOT ?? process.cwd();
  return {
    memoryMb: config.PDF_SANDBOX_MEMORY_MB,
    seconds: config.PDF_SANDBOX_SECONDS,
    entry: path.resolve(root, config.PDF_SANDBOX_ENTRY),
  };
}

/** Resident and peak resident memory of a process in MB, from /proc; null where there is none. */
function residentMb(pid: number): { rss: number; peak: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

const overMemory = (limits: SandboxLimits) =>
  new PdfUnreadable('too_large', {
    message: `This PDF needs more than ${limits.memoryMb} MB of memory to read, far more than any contents list; it is damaged or built to exhaust the reader. Export the list again and upload the new copy.`,
  });

const overTime = (limits: SandboxLimits) =>
  new PdfUnreadable('too_large', {
    message: `This PDF took longer than ${limits.seconds} s to read one step, far longer than any contents list; it is damaged or built to exhaust the reader. Export the list again and upload the new copy.`,
  });

/** The error a child sent, as the reader would have thrown it in this process. */
function received(error: CrossingError): Error {
  if (error.name === 'PdfUnreadable' && error.kind)
    return new PdfUnreadable(error.kind as PdfUnreadable['kind'], { message: error.message });
  if (error.name === 'RangeError') return new RangeError(error.message);
  return new Error(`PDF reader: ${error.message}`);
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

class SandboxedReader implements PdfReader {
  pageCount = 0;
  producer: string | null = null;
  /** The child's highest resident memory seen, in MB (for the figures of tests and benchmarks). */
  peakMb = 0;

  private readonly pending = new Map<number | null, Pending>();
  private nextId = 1;
  /** Why the child is gone, once it is: every call after that fails with it. */
  private ended: Error | null = null;
  private breach: Error | null = null;
  private stderrTail = '';
  private readonly sampler: NodeJS.Timeout;

  constructor(
    private readonly child: ChildProcess,
    private readonly limits: SandboxLimits,
  ) {
    child.on('message', (message: FromChild) => this.receive(message));
    child.on('exit', (code, signal) => this.exited(code, signal));
    child.on('error', (error) => this.end(new Error(`PDF reader: ${error.message}`)));
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-4096);
    });
    this.sampler = setInterval(() => this.sample(), SAMPLE_MS);
    this.sampler.unref();
  }

  private sample(): void {
    const pid = this.child.pid;
    const memory = pid === undefined ? null : residentMb(pid);
    if (!memory) return;
    this.peakMb = Math.max(this.peakMb, memory.rss, memory.peak);
    if (memory.rss > this.limits.memoryMb) this.kill(overMemory(this.limits));
  }

  /** Ends the child for a breach of its ceiling; what is waiting fails with that. */
  private kill(breach: Error): void {
    if (this.ended || this.breach) return;
    this.breach = breach;
    this.child.kill('SIGKILL');
  }

  private receive(message: FromChild): void {
    const id = message.type === 'opened' ? null : message.id;
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    if (message.type === 'failed') waiting.reject(received(message.error));
    else if (message.type === 'opened') {
      this.pageCount = message.pageCount;
      this.producer = message.producer;
      waiting.resolve(undefined);
    } else waiting.resolve(message.value);
  }

  private exited(code: number | null, signal: NodeJS.Signals | null): void {
    // V8's fatal allocation failures: its heap at the cap, or a table or array larger than it can make.
    const heapExhausted = /heap out of memory|Reached heap limit|invalid table size|invalid array length/i.test(
      this.stderrTail,
    );
    const reason =
      this.breach ??
      // The kernel's out-of-memory killer (SIGKILL) or V8 at its heap cap (an abort): the memory ceiling.
      (signal === 'SIGKILL' || heapExhausted
        ? overMemory(this.limits)
        : signal || code === BROKEN_BY_DOCUMENT_EXIT
          ? new PdfUnreadable('corrupt', { cause: new Error(`the reader stopped (${signal ?? code})`) })
          : new Error(`PDF reader exited (${code}): ${this.stderrTail.slice(-500)}`));
    this.end(reason);
  }

  private end(reason: Error): void {
    clearInterval(this.sampler);
    this.sample();
    this.ended ??= reason;
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(this.ended);
      this.pending.delete(id);
    }
  }

  /** Sends a message and waits for its answer, within the time limit. */
  request(message: ToChild, id: number | null): Promise<unknown> {
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.kill(overTime(this.limits)), this.limits.seconds * 1000);
      this.pending.set(id, { resolve, reject, timer });
      this.child.send(message, (error) => {
        if (error) this.end(new Error(`PDF reader: ${error.message}`));
      });
    });
  }

  private call(method: SandboxedMethod, ...args: unknown[]): Promise<unknown> {
    const id = this.nextId++;
    return this.request({ type: 'call', id, method, args }, id);
  }

  async pageLayout(page: number) {
    return (await this.call('pageLayout', page)) as Awaited<ReturnType<PdfReader['pageLayout']>>;
  }

  async imageJpeg(page: number, image: PdfImagePlacement): Promise<Buffer> {
    return asBuffer(await this.call('imageJpeg', page, image));
  }

  async renderPage(page: number, longEdge: number): Promise<Buffer> {
    return asBuffer(await this.call('renderPage', page, longEdge));
  }

  async renderRegion(page: number, box: PdfBox, longEdge: number): Promise<Buffer> {
    return asBuffer(await this.call('renderRegion', page, box, longEdge));
  }

  async close(): Promise<void> {
    if (!this.ended && this.child.connected) this.child.send({ type: 'close' } satisfies ToChild, () => undefined);
    // The child exits on `close`; one that does not (busy in a parser) is not waited for.
    const gone = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) resolve();
      else this.child.once('exit', () => resolve());
    });
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    await gone;
    clearTimeout(timer);
    this.end(new Error('the PDF reader was closed'));
  }
}

/** A JPEG that crossed the channel: a Uint8Array there, a Buffer (a view, not a copy) here. */
function asBuffer(value: unknown): Buffer {
  const bytes = value as Uint8Array;
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Opens a PDF in a sandbox of its own: a PdfReader whose every call runs in
 * the child. Throws PdfUnreadable as the reader would (not a PDF, damaged,
 * needs a password, no pages) and 'too_large' when the child passes its
 * memory or its time. Close it: the child lives until then.
 */
export async function openSandboxedPdf(
  bytes: Uint8Array,
  options: OpenOptions = {},
  limits: SandboxLimits = sandboxLimits(),
): Promise<PdfReader & { peakMb: number }> {
  // A missing entry is the deployment's fault, not the document's: it fails the stage, not the document.
  if (!existsSync(limits.entry)) throw new Error(`the PDF sandbox's entry is missing: ${limits.entry}`);
  const heapMb = Math.max(64, Math.floor(limits.memoryMb * HEAP_SHARE));
  const child = fork(limits.entry, [], {
    execArgv: [`--max-old-space-size=${heapMb}`],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const reader = new SandboxedReader(child, limits);
  try {
    await reader.request({ type: 'open', bytes, options }, null);
  } catch (error) {
    await reader.close();
    throw error;
  }
  return reader;
}
