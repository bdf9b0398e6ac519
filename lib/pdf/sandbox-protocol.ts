/**
 * The messages between a sandboxed PDF read (./sandbox.ts, in the worker) and
 * the child process that does it (./sandbox-child.ts). A child reads one
 * document at a time, one after another: `open`, then calls of the reader's
 * methods, each answered by its id, then `release`, answered by `released`
 * once the document is closed and every call on it answered; the child then
 * waits for the next `open`. It exits when its parent goes (or kills it).
 * Bytes travel as Uint8Array (the channel's structured clone); a document
 * may instead be named by a file on the worker's disk.
 */
import type { OpenOptions } from './reader';

/**
 * The document to read: its bytes, or a file the child reads itself (a large
 * list then never crosses the channel, nor sits in the worker's memory).
 */
export type SandboxedDocument = { bytes: Uint8Array } | { file: string };

/** The reader methods a child answers (PdfReader's, less close). */
export type SandboxedMethod = 'pageLayout' | 'imageJpeg' | 'renderPage' | 'renderRegion';

export type ToChild =
  | { type: 'open'; document: SandboxedDocument; options: OpenOptions }
  | { type: 'call'; id: number; method: SandboxedMethod; args: unknown[] }
  | { type: 'release' };

/** An error as it crosses: a PdfUnreadable keeps its kind, a RangeError its name, anything else its message. */
export interface CrossingError {
  name: string;
  message: string;
  kind?: string;
}

export type FromChild =
  | { type: 'opened'; pageCount: number; producer: string | null }
  | { type: 'result'; id: number; value: unknown }
  | { type: 'failed'; id: number | null; error: CrossingError }
  | { type: 'released' };

/** The exit code of a child the document broke (an exception nothing awaited): its parent reads it as damage. */
export const BROKEN_BY_DOCUMENT_EXIT = 70;
