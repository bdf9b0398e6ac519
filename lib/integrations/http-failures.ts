/** How the outbound HTTP clients (AI gateway, speech-to-text) read a failed call. */

/** A Retry-After longer than this is not honoured in full; the job has a deadline. */
const MAX_RETRY_AFTER_MS = 30_000;

/** The wait a Retry-After header asks for (seconds or an HTTP date), capped; null when absent or unreadable. */
export function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.min(Math.max(0, at - Date.now()), MAX_RETRY_AFTER_MS) : null;
}

/** A network failure in words: fetch's message and the socket's code (ECONNRESET, UND_ERR_...). */
export function causeOf(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const code = e?.cause?.code ?? e?.cause?.message;
  return [e?.message ?? String(err), code].filter(Boolean).join(': ');
}
