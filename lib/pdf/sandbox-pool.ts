/**
 * The PDF sandbox's children (./sandbox.ts), kept warm: a child that closed
 * its document cleanly waits here, and the next open in this process takes
 * it, so pdf-lib and pdf.js are loaded and compiled once per worker rather
 * than once per document. At most one child waits, and only for the same
 * limits; while it waits it does not keep the worker's event loop alive. A
 * child that passed a ceiling, died, did not release its document in time,
 * grew, or has read many documents is killed instead.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import type { FromChild } from './sandbox-protocol';

/** The ceilings a sandbox's child reads under (./sandbox.ts); a child waits only for the same ones. */
export interface SandboxLimits {
  /** Resident memory the child may reach, in MB. */
  memoryMb: number;
  /** Wall time the open, and each call after it, may take, in seconds. */
  seconds: number;
  /** The child's entry script (absolute). */
  entry: string;
}

/** The part of the ceiling the child's V8 heap may take; the rest is for its buffers and native allocations. */
const HEAP_SHARE = 0.75;

/**
 * The share of its memory ceiling a child may hold when its document is
 * closed and still be kept: the next document then has at least half the
 * ceiling, where a fresh child would have most of it.
 */
const KEEP_BELOW_MEMORY_SHARE = 0.5;

/** Documents one child reads before it is retired: bounds a slow leak the memory share would see only late. */
const MAX_DOCUMENTS_PER_CHILD = 50;

/** Resident and peak resident memory of a process in MB, from /proc; null where there is none. */
export function residentMb(pid: number): { rss: number; peak: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'latin1');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/** What the read holding a child hears from it. */
export interface ChildListener {
  message(message: FromChild): void;
  exited(code: number | null, signal: NodeJS.Signals | null): void;
  failed(error: Error): void;
  stderr(text: string): void;
}

/** A child process of the sandbox, across the documents it reads; its events go to the read holding it. */
export class SandboxChild {
  /** Documents this child has opened, the current one included. */
  documents = 1;
  listener: ChildListener | null = null;

  constructor(
    readonly process: ChildProcess,
    readonly key: string,
  ) {
    // Listened to for the child's whole life: an 'error' nobody listens to would throw in the worker.
    process.on('message', (message: FromChild) => this.listener?.message(message));
    process.on('error', (error) => this.listener?.failed(error));
    process.on('exit', (code, signal) => {
      if (idle === this) idle = null;
      this.listener?.exited(code, signal);
    });
    process.stderr?.on('data', (chunk: Buffer) => this.listener?.stderr(chunk.toString('utf8')));
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  get alive(): boolean {
    const child = this.process;
    return child.exitCode === null && child.signalCode === null && !child.killed && child.connected;
  }

  /** Whether the worker's event loop waits on this child: while a read holds it, not while it waits here. */
  hold(held: boolean): void {
    const stderr = this.process.stderr as Socket | null;
    if (held) {
      this.process.ref();
      this.process.channel?.ref();
      stderr?.ref();
    } else {
      this.process.unref();
      this.process.channel?.unref();
      stderr?.unref();
    }
  }

  /** Kills the child; resolves once it is gone. */
  retire(): Promise<void> {
    if (idle === this) idle = null;
    const child = this.process;
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    return gone;
  }
}

/** The child waiting for this process's next document, if any. */
let idle: SandboxChild | null = null;

const keyOf = (limits: SandboxLimits) => `${limits.entry}\n${limits.memoryMb}\n${limits.seconds}`;

/** The waiting child if it was made for these limits and is alive, else a new one. */
export function takeChild(limits: SandboxLimits): SandboxChild {
  const key = keyOf(limits);
  const waiting = idle;
  if (waiting?.key === key && waiting.alive) {
    idle = null;
    waiting.documents++;
    waiting.hold(true);
    return waiting;
  }
  const heapMb = Math.max(64, Math.floor(limits.memoryMb * HEAP_SHARE));
  const child = fork(limits.entry, [], {
    // The child collects its garbage when it releases a document (./sandbox-child.ts).
    execArgv: [`--max-old-space-size=${heapMb}`, '--expose-gc'],
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  return new SandboxChild(child, key);
}

/**
 * Takes back a child whose document was released: kept for the next open if
 * it is alive, small and has read few documents (a child kept before it is
 * killed: one waits at a time), else killed. Resolves once that is done.
 */
export function giveBack(child: SandboxChild, limits: SandboxLimits): Promise<void> {
  child.listener = null;
  const memory = child.pid === undefined ? null : residentMb(child.pid);
  const keep =
    child.alive &&
    memory !== null &&
    memory.rss < limits.memoryMb * KEEP_BELOW_MEMORY_SHARE &&
    child.documents < MAX_DOCUMENTS_PER_CHILD;
  if (!keep) return child.retire();
  const previous = idle;
  idle = child;
  child.hold(false);
  if (previous && previous !== child) void previous.retire();
  return Promise.resolve();
}
