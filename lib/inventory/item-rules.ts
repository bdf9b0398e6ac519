/** Item rules (spec: Processing rules 2 and 3). Pure: no I/O. */
import { createHash } from 'node:crypto';

/** Confidence below this flags an item for review (Processing rules 2). */
export const REVIEW_CONFIDENCE = 0.6;

/** A stable uuid-shaped id from its parts: the same inputs always give the same id. */
export function derivedId(...parts: (string | number)[]): string {
  const h = createHash('sha256').update(parts.join('\u0000')).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Batch keys of a pipeline pass start with this, so a pass's batches can be found again. */
export const passBatchPrefix = (pass: number) => `pass${pass}#`;
