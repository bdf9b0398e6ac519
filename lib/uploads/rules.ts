/**
 * The pure rules of the chunked video/audio upload (spec: Uploads > Chunked
 * upload; Limits > MAX_UPLOAD_SIZE_MB, MAX_CHUNK_BYTES,
 * RECOMMENDED_CHUNK_BYTES).
 * No I/O here: the service (service.ts) applies these to S3's answers.
 */
import type { Settings } from '../config';
import type { FieldProblem } from '../errors';
import { extensionOf } from '../text';

export type UploadKind = 'video' | 'audio';

/** Extensions accepted per kind, lower case, without the dot. */
export const ALLOWED_EXTENSIONS: Record<UploadKind, readonly string[]> = {
  video: ['mp4', 'mov', 'm4v', 'avi', 'mkv', 'webm', '3gp', 'mts'],
  audio: ['mp3', 'm4a', 'wav', 'aac', 'ogg', 'oga', 'opus', 'flac', 'webm', 'amr'],
};

/** Content-Type stored on the assembled object, by extension. */
const CONTENT_TYPES: Record<string, string> = {
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  m4v: 'video/x-m4v',
  avi: 'video/x-msvideo',
  mkv: 'video/x-matroska',
  '3gp': 'video/3gpp',
  mts: 'video/mp2t',
  mp3: 'audio/mpeg',
  m4a: 'audio/mp4',
  wav: 'audio/wav',
  aac: 'audio/aac',
  ogg: 'audio/ogg',
  oga: 'audio/ogg',
  opus: 'audio/opus',
  flac: 'audio/flac',
  amr: 'audio/amr',
};

export function contentTypeFor(kind: UploadKind, filename: string): string {
  const ext = extensionOf(filename);
  if (ext === 'webm') return `${kind}/webm`;
  return CONTENT_TYPES[ext] ?? 'application/octet-stream';
}

/** S3: every part but the last must be at least 5 MiB. */
export const S3_MIN_PART_BYTES = 5 * 1024 * 1024;
/** S3: at most 10,000 parts per multipart upload. */
const S3_MAX_PARTS = 10_000;
/** Part URLs one call may ask for. */
export const MAX_PART_URLS_PER_CALL = 100;
/** An open upload older than this is abandoned (spec: init sweeps uploads abandoned for over a day). */
export const STALE_UPLOAD_MS = 24 * 3600 * 1000;

const MIB = 1024 * 1024;

/** The last path segment of a client-supplied name (browsers may send C:\fakepath\x.mp4). */
export function baseName(filename: string): string {
  const parts = filename.trim().split(/[\\/]/);
  return (parts[parts.length - 1] ?? '').trim();
}

export function isAllowedExtension(kind: UploadKind, filename: string): boolean {
  return ALLOWED_EXTENSIONS[kind].includes(extensionOf(filename));
}

/** The 400 message for a refused extension, naming what is accepted. */
export function unsupportedTypeMessage(kind: UploadKind, filename: string): string {
  const ext = extensionOf(filename);
  const allowed = ALLOWED_EXTENSIONS[kind].map((e) => `.${e}`).join(', ');
  return `Unsupported file type ${ext ? `".${ext}"` : '(no extension)'} for ${kind} upload. Allowed: ${allowed}`;
}

/**
 * A name safe as the last segment of an object key: the base name with
 * anything but letters, digits, dot, dash and underscore replaced, no leading
 * dots, at most 120 characters, the extension kept.
 */
export function sanitizeFilename(filename: string): string {
  const ext = extensionOf(filename);
  const name = baseName(filename);
  const stem = ext ? name.slice(0, name.length - ext.length - 1) : name;
  let safeStem = stem
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[._]+/, '')
    .replace(/\.{2,}/g, '.');
  safeStem = safeStem.slice(0, 100).replace(/[._]+$/, '');
  return `${safeStem || 'upload'}${ext ? `.${ext}` : ''}`;
}

/** The per-file cap in bytes (MAX_UPLOAD_SIZE_MB, in MiB). */
export function maxUploadBytes(config: Pick<Settings, 'MAX_UPLOAD_SIZE_MB'>): number {
  return Math.floor(config.MAX_UPLOAD_SIZE_MB * MIB);
}

export function tooLargeMessage(totalSize: number, config: Pick<Settings, 'MAX_UPLOAD_SIZE_MB'>): string {
  return `File too large: ${formatMb(totalSize)} MB exceeds the ${config.MAX_UPLOAD_SIZE_MB} MB limit for video and audio uploads.`;
}

const formatMb = (bytes: number) => (Math.round((bytes / MIB) * 10) / 10).toString();

/**
 * The part size handed to the client: RECOMMENDED_CHUNK_BYTES clamped to
 * [5 MiB, MAX_CHUNK_BYTES] (S3's minimum wins over a smaller cap), raised when
 * the file would otherwise need more than 10,000 parts. Null when even the cap
 * cannot cover the file in 10,000 parts.
 */
export function chunkSizeFor(
  totalSize: number,
  config: Pick<Settings, 'RECOMMENDED_CHUNK_BYTES' | 'MAX_CHUNK_BYTES'>,
): number | null {
  const cap = Math.max(S3_MIN_PART_BYTES, config.MAX_CHUNK_BYTES);
  let chunk = Math.min(Math.max(config.RECOMMENDED_CHUNK_BYTES, S3_MIN_PART_BYTES), cap);
  if (Math.ceil(totalSize / chunk) > S3_MAX_PARTS) {
    chunk = Math.ceil(totalSize / S3_MAX_PARTS / MIB) * MIB;
    if (chunk > cap) return null;
  }
  return chunk;
}

export function partCountFor(totalSize: number, chunkSize: number): number {
  return Math.max(1, Math.ceil(totalSize / chunkSize));
}

/** Exact byte size of part `index` (0-based): chunk_size, or the remainder for the last one. */
export function partSize(index: number, totalSize: number, chunkSize: number): number {
  const count = partCountFor(totalSize, chunkSize);
  if (!Number.isInteger(index) || index < 0 || index >= count)
    throw new RangeError(`part ${index} is out of range 0..${count - 1}`);
  return index === count - 1 ? totalSize - chunkSize * (count - 1) : chunkSize;
}

/** A part as S3 lists it, by 0-based index. */
export interface ReceivedPart {
  index: number;
  size: number;
}

export type AssemblyCheck = { ok: true } | { ok: false; reason: 'missing' | 'extra' | 'size'; message: string };

/** Compresses sorted indices for a message: 0, 2-5, 9. */
export function describeIndices(indices: number[]): string {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    runs.push(j === i ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return runs.join(', ');
}

/**
 * complete's rule: the received parts must be exactly the gap-free run
 * 0..part_count-1, each of its exact size, adding up to total_size.
 */
export function checkAssembly(
  parts: ReceivedPart[],
  upload: { total_size: number; chunk_size: number; part_count: number },
): AssemblyCheck {
  const { total_size, chunk_size, part_count } = upload;
  const byIndex = new Map(parts.map((p) => [p.index, p.size]));
  const missing: number[] = [];
  for (let i = 0; i < part_count; i++) if (!byIndex.has(i)) missing.push(i);
  if (missing.length) {
    return {
      ok: false,
      reason: 'missing',
      message: `Upload incomplete: missing part${missing.length > 1 ? 's' : ''} ${describeIndices(missing)} of 0-${part_count - 1} (${part_count - missing.length} of ${part_count} received).`,
    };
  }
  const extra = parts.filter((p) => p.index < 0 || p.index >= part_count).map((p) => p.index);
  if (extra.length) {
    return {
      ok: false,
      reason: 'extra',
      message: `Unexpected part${extra.length > 1 ? 's' : ''} ${describeIndices(extra)}: this upload has parts 0-${part_count - 1}.`,
    };
  }
  const assembled = parts.reduce((sum, p) => sum + p.size, 0);
  const wrong = parts.filter((p) => p.size !== partSize(p.index, total_size, chunk_size));
  if (assembled !== total_size || wrong.length) {
    const diff = assembled - total_size;
    const details = wrong
      .slice(0, 5)
      .map((p) => `part ${p.index} is ${p.size} bytes, expected ${partSize(p.index, total_size, chunk_size)}`)
      .join('; ');
    const head =
      diff === 0
        ? `Part sizes do not match the upload`
        : `Assembled size ${assembled} bytes differs from total_size ${total_size} (${Math.abs(diff)} byte${Math.abs(diff) === 1 ? '' : 's'} ${diff > 0 ? 'too many' : 'short'})`;
    return { ok: false, reason: 'size', message: `${head}${details ? `: ${details}` : ''}.` };
  }
  return { ok: true };
}

/** The requested part indices past the upload's last part, as per-field problems (422); empty when all fit. */
export function partsOutOfRange(indices: number[], partCount: number): FieldProblem[] {
  const message = `is out of range: this upload has parts 0-${partCount - 1}`;
  return indices.flatMap((index, at) =>
    index >= partCount ? [{ field: `body.parts.${at}`, message: `${index} ${message}` }] : [],
  );
}
