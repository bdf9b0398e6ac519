/**
 * Every read of an untrusted PDF runs in a child process, with a hard
 * ceiling on its memory and on the time each step may take. The
 * reader's own limits (./reading-limits.ts) refuse the documents they know
 * of; this holds against the ones they do not: a parser path nobody
 * guarded, the next library bug. A child that passes its resident memory
 * (sampled every few ms from /proc, and its V8 heap capped below it) or its
 * time is killed, and the read fails with PdfUnreadable 'too_large' naming
 * the ceiling, so the import records the document as failed with that reason
 * while the worker, which never held what the document made, goes on.
 * A child whose document closed cleanly reads the worker's next document
 * (./sandbox-pool.ts), under the same ceilings: they hold for the process,
 * whatever it read before.
 *
 * The child runs functions/sandbox/pdf-reader (./sandbox-child.ts); the
 * packaging puts that bundle beside every function that reads PDFs.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { settings as currentSettings, type Settings } from '../config';
import type { PdfImagePlacement, PdfBox } from './layout';
import type { OpenOptions, PdfReader } from './reader';
import { giveBack, residentMb, type SandboxChild, type SandboxLimits, takeChild } from './sandbox-pool';
import {
  BROKEN_BY_DOCUMENT_EXIT,
  type CrossingError,
  type FromChild,
  type SandboxedDocument,
  type SandboxedMethod,
  type ToChild,
} from './sandbox-protocol';
import { PdfUnreadable } from './unreadable';

export type { SandboxLimits } from './sandbox-pool';

/** How often the child's resident memory is read. */
const SAMPLE_MS = 20;

/** How long a child may take to close its document and answer its last calls before it is killed, not kept. */
const RELEASE_MS = 2000;

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

/** What an answer is for: a call by its id, or the open or the release. */
type Awaiting = number | 'open' | 'release';

class SandboxedReader implements PdfReader {
  pageCount = 0;
  producer: string | null = null;
  /** The child's highest resident memory while it read this document, in MB (for tests' and benchmarks' figures). */
  peakMb = 0;

  private readonly pending = new Map<Awaiting, Pending>();
  private nextId = 1;
  /** Why the child is gone or this document closed, once it is: every call after that fails with it. */
  private ended: Error | null = null;
  private breach: Error | null = null;
  private closing: Promise<void> | null = null;
  /** What the child wrote on its error stream while it read this document. */
  private stderrTail = '';
  private readonly sampler: NodeJS.Timeout;

  constructor(
    private readonly child: SandboxChild,
    private readonly limits: SandboxLimits,
  ) {
    child.listener = {
      message: (message) => this.receive(message),
      exited: (code, signal) => this.exited(code, signal),
      failed: (error) => this.end(new Error(`PDF reader: ${error.message}`)),
      stderr: (text) => {
        this.stderrTail = (this.stderrTail + text).slice(-4096);
      },
    };
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
    this.child.process.kill('SIGKILL');
  }

  private receive(message: FromChild): void {
    const awaiting: Awaiting =
      message.type === 'opened' ? 'open' : message.type === 'released' ? 'release' : (message.id ?? 'open');
    const waiting = this.pending.get(awaiting);
    if (!waiting) return;
    this.pending.delete(awaiting);
    clearTimeout(waiting.timer);
    if (message.type === 'failed') waiting.reject(received(message.error));
    else if (message.type === 'opened') {
      this.pageCount = message.pageCount;
      this.producer = message.producer;
      waiting.resolve(undefined);
    } else if (message.type === 'result') waiting.resolve(message.value);
    else waiting.resolve(undefined);
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
    for (const [awaiting, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(this.ended);
      this.pending.delete(awaiting);
    }
  }

  /** Sends a message and waits for its answer, within the time limit (past it the child is killed). */
  request(message: ToChild, awaiting: Awaiting, ms = this.limits.seconds * 1000): Promise<unknown> {
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.kill(overTime(this.limits)), ms);
      this.pending.set(awaiting, { resolve, reject, timer });
      this.child.process.send(message, (error) => {
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

  /** Once only: a second close must not touch a child another read may hold by then. */
  close(): Promise<void> {
    this.closing ??= this.release();
    return this.closing;
  }

  /** Has the child close the document; one that does so in time goes back to the pool, any other is killed. */
  private async release(): Promise<void> {
    const released = await this.request({ type: 'release' }, 'release', RELEASE_MS).then(
      () => true,
      () => false,
    );
    // Sampled once more as it ends: a child over its ceiling now is killed here, and so not kept.
    this.end(new Error('the PDF reader was closed'));
    await (released ? giveBack(this.child, this.limits) : this.child.retire());
  }
}

/** A JPEG that crossed the channel: a Uint8Array there, a Buffer (a view, not a copy) here. */
function asBuffer(value: unknown): Buffer {
  const bytes = value as Uint8Array;
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Opens a PDF in a sandbox: a PdfReader whose every call runs in a child
 * process, this worker's warm one if it has one. The document is its bytes,
 * or a file the child reads (the file may go once this resolves). Throws PdfUnreadable as the
 * reader would (not a PDF, damaged, needs a password, no pages) and
 * 'too_large' when the child passes its memory or its time. Close it: the
 * child is this document's until then.
 */
export async function openSandboxedPdf(
  document: Uint8Array | { file: string },
  options: OpenOptions = {},
  limits: SandboxLimits = sandboxLimits(),
): Promise<PdfReader & { peakMb: number }> {
  // A missing entry is the deployment's fault, not the document's: it fails the stage, not the document.
  if (!existsSync(limits.entry)) throw new Error(`the PDF sandbox's entry is missing: ${limits.entry}`);
  const reader = new SandboxedReader(takeChild(limits), limits);
  try {
    const sent: SandboxedDocument = document instanceof Uint8Array ? { bytes: document } : document;
    await reader.request({ type: 'open', document: sent, options }, 'open');
  } catch (error) {
    // After a refusal the child is well and is kept; after a breach or a crash it is gone.
    await reader.close();
    throw error;
  }
  return reader;
}
