/**
 * The messages between a sandboxed PDF read (./sandbox.ts, in the worker) and
 * the child process that does it (./sandbox-child.ts). One child reads one
 * document: `open` first, then calls of the reader's methods, each answered
 * by its id; the child exits when told to close or when its parent goes.
 * Bytes travel as Uint8Array (the channel's structured clone).
 */
import type { OpenOptions } from './reader';

/** The reader methods a child answers (PdfReader's, less close). */
export type SandboxedMethod = 'pageLayout' | 'imageJpeg' | 'renderPage' | 'renderRegion';

export type ToChild =
  | { type: 'open'; bytes: Uint8Array; options: OpenOptions }
  | { type: 'call'; id: number; method: SandboxedMethod; args: unknown[] }
  | { type: 'close' };

/** An error as it crosses: a PdfUnreadable keeps its kind, a RangeError its name, anything else its message. */
export interface CrossingError {
  name: string;
  message: string;
  kind?: string;
}

export type FromChild =
  | { type: 'opened'; pageCount: number; producer: string | null }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'failed'; id: number | null; error: CrossingError };

/** The exit code of a child the document broke (an exception nothing awaited): its parent reads it as damage. */
export const BROKEN_BY_DOCUMENT_EXIT = 70;
