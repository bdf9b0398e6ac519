/**
 * The child process of a sandboxed PDF read (./sandbox.ts): it opens a
 * document with the reader (./reader.ts) and answers its parent's calls, so
 * whatever the document makes the parsers allocate or loop over is this
 * process's, which its parent measures and kills. Released, it closes the
 * document and waits for the next one, the parsers loaded and compiled.
 * Started by the entry functions/sandbox/pdf-reader.ts.
 */
import { writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { openPdf, type PdfReader, PdfUnreadable } from './reader';
import { BROKEN_BY_DOCUMENT_EXIT, type CrossingError, type FromChild, type ToChild } from './sandbox-protocol';

function crossing(error: unknown): CrossingError {
  if (error instanceof PdfUnreadable) return { name: error.name, message: error.message, kind: error.kind };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

/**
 * Makes the kernel's out-of-memory killer take this process before any
 * other: should a burst of allocation outrun the parent's sampling and fill
 * the function's memory, the child dies, not the worker. Raising one's own
 * score needs no privilege; where /proc is missing this does nothing.
 */
function volunteerForOutOfMemoryKill(): void {
  try {
    writeFileSync('/proc/self/oom_score_adj', '1000');
  } catch {
    // Not Linux, or /proc not writable: the parent's sampling is the only ceiling.
  }
}

/**
 * Once a document is closed: its garbage collected, so the resident memory the
 * parent weighs before keeping this child is what stays, and the peak reset, so
 * the next document's peak is its own. Both where the platform allows.
 */
function forgetDocument(): void {
  global.gc?.();
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Not Linux: the next document's peak includes this one's.
  }
}

/** Serves documents one after another over the IPC channel until the parent goes. */
export function servePdfReads(): void {
  const send = process.send?.bind(process);
  if (!send) throw new Error('the PDF sandbox runs as a child process with an IPC channel');
  volunteerForOutOfMemoryKill();
  // A parser's stray rejection is not the call's answer (that comes, or the parent's clock ends it).
  process.on('unhandledRejection', (reason) => process.stderr.write(`unhandled rejection: ${String(reason)}\n`));
  process.on('uncaughtException', (error) => {
    process.stderr.write(`uncaught exception: ${error?.stack ?? String(error)}\n`);
    process.exit(BROKEN_BY_DOCUMENT_EXIT);
  });
  const reply = (message: FromChild) => send(message);
  // Messages are handled in the order they came: a call sent right after the open waits for the document.
  let opened: Promise<PdfReader | null> = Promise.resolve(null);
  // Calls not yet answered: a release waits for them, so no answer of this document follows `released`.
  const answering = new Set<Promise<void>>();

  const answer = async (message: Extract<ToChild, { type: 'call' }>) => {
    try {
      const reader = await opened;
      if (!reader) throw new Error('no document is open');
      const method = reader[message.method] as (...args: unknown[]) => Promise<unknown>;
      reply({ type: 'result', id: message.id, value: await method.apply(reader, message.args) });
    } catch (error) {
      reply({ type: 'failed', id: message.id, error: crossing(error) });
    }
  };

  process.on('disconnect', () => process.exit(0));
  process.on('message', async (message: ToChild) => {
    if (message.type === 'release') {
      const released = opened;
      const calls = [...answering];
      opened = Promise.resolve(null);
      await Promise.allSettled(calls);
      // A document that will not close leaves its state here: this child ends rather than read another.
      await (await released.catch(() => null))?.close().catch(() => process.exit(BROKEN_BY_DOCUMENT_EXIT));
      forgetDocument();
      reply({ type: 'released' });
      return;
    }
    if (message.type === 'open') {
      const { document } = message;
      const opening = Promise.resolve()
        .then(() => ('file' in document ? readFile(document.file) : document.bytes))
        .then((bytes) => openPdf(bytes, message.options));
      opened = opening;
      try {
        const reader = await opening;
        reply({ type: 'opened', pageCount: reader.pageCount, producer: reader.producer });
      } catch (error) {
        reply({ type: 'failed', id: null, error: crossing(error) });
      }
      return;
    }
    if (message.type === 'call') {
      const call = answer(message);
      answering.add(call);
      await call;
      answering.delete(call);
    }
  });
}
