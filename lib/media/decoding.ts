/**
 * What every image decoder here shares: the error a caller turns into
 * skipped_photos, the decompression-bomb guard and sharp's options for
 * untrusted bytes. Workers only (loads sharp's types).
 */
import type { SharpOptions } from 'sharp';

/**
 * Largest decoded image accepted, in pixels (width x height), checked from the header before
 * decoding. 100 MP covers 108 MP phone sensors; anything larger is refused as unreadable.
 */
export const MAX_INPUT_PIXELS = 100_000_000;

export const DEFAULT_JPEG_QUALITY = 90;

/** A file that is not an image we can decode, is corrupt, truncated, or too large. */
export class UnreadableImageError extends Error {
  override readonly name = 'UnreadableImageError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Decoded pixels, 8 bits per channel. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

function shortReason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const line = text.split('\n').find((l) => l.trim()) ?? 'decode failed';
  return line.trim().slice(0, 160);
}

/** A decoder's failure as an UnreadableImageError with a one-line reason. */
export function unreadable(what: string, err: unknown): UnreadableImageError {
  if (err instanceof UnreadableImageError) return err;
  return new UnreadableImageError(`${what}: ${shortReason(err)}`, { cause: err });
}

export function checkPixels(width: number | undefined, height: number | undefined, limit: number): void {
  if (!width || !height || width < 1 || height < 1) throw new UnreadableImageError('image has no dimensions');
  if (width * height > limit) {
    throw new UnreadableImageError(`image too large: ${width}x${height} exceeds ${limit} pixels`);
  }
}

/** sharp input options for untrusted bytes. */
export function inputOptions(limit: number): SharpOptions {
  // failOn 'error': refuse truncated or broken pixel data, tolerate mere warnings.
  return { limitInputPixels: limit, failOn: 'error', sequentialRead: true };
}

export function positiveInt(
  name: string,
  value: number | undefined,
  fallback: number | null,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined && fallback !== null) return fallback;
  if (value === undefined || !Number.isInteger(value) || value < 1 || value > max)
    throw new RangeError(`${name} must be an integer from 1 to ${max}`);
  return value;
}
