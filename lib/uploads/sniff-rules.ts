/**
 * Recognising a video or audio recording from its first bytes (magic bytes
 * only, no decoding): the type a recording is stored and served with is the
 * one its bytes show, never the one a client or a remote source declared (a
 * recording declared text/html would otherwise be served as a page from the
 * bucket's origin). Pure; lib/media/sniff.ts does the same for photos.
 */
import type { UploadKind } from './rules';

/** How many leading bytes recordingContentType looks at (an MPEG transport stream needs two 188/192-byte packets). */
export const RECORDING_SNIFF_BYTES = 4096;

/** ISO-BMFF brands of files that are audio only. */
const AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'F4A ', 'F4B ']);
/** ISO-BMFF brands of images (HEIF, AVIF, JPEG 2000): never a recording. */
const IMAGE_BRANDS = new Set([
  'heic',
  'heix',
  'heim',
  'heis',
  'hevc',
  'hevx',
  'mif1',
  'msf1',
  'mif2',
  'avif',
  'avis',
  'jp2 ',
  'jpx ',
  'crx ',
]);
/** QuickTime files may start with one of these atoms instead of ftyp. */
const QUICKTIME_ATOMS = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

const text = (head: Buffer, start: number, end: number) =>
  head.length >= end ? head.toString('latin1', start, end) : '';

/** The container of an ISO-BMFF file from its ftyp box (major brand, then compatible brands). */
function isoBmffType(head: Buffer, kind: UploadKind): string | null {
  const size = head.readUInt32BE(0);
  const major = text(head, 8, 12);
  const brands = [major];
  for (let at = 16; at + 4 <= Math.min(size, head.length); at += 4) brands.push(text(head, at, at + 4));
  if (IMAGE_BRANDS.has(major)) return null;
  if (major === 'qt  ') return kind === 'audio' ? 'audio/mp4' : 'video/quicktime';
  if (major.startsWith('3g')) return kind === 'audio' ? 'audio/3gpp' : 'video/3gpp';
  if (AUDIO_BRANDS.has(major) || kind === 'audio') return 'audio/mp4';
  return brands.some((b) => IMAGE_BRANDS.has(b)) && !brands.some((b) => /^(iso|mp4|avc|M4V)/.test(b))
    ? null
    : 'video/mp4';
}

/** Matroska or WebM, by the EBML header's DocType (within its first bytes). */
function matroskaType(head: Buffer, kind: UploadKind): string {
  const docType = head.subarray(0, 64).includes('webm', 0, 'latin1') ? 'webm' : 'x-matroska';
  return `${kind}/${docType}`;
}

/** An MPEG audio frame header (MP3 and its kin): sync, a layer, a bitrate and a rate that exist. */
function isMpegAudioFrame(head: Buffer): boolean {
  if (head.length < 4 || head[0] !== 0xff || (head[1] & 0xe0) !== 0xe0) return false;
  const version = (head[1] >> 3) & 0x03;
  const layer = (head[1] >> 1) & 0x03;
  const bitrate = head[2] >> 4;
  const rate = (head[2] >> 2) & 0x03;
  return version !== 1 && layer !== 0 && bitrate !== 0 && bitrate !== 15 && rate !== 3;
}

/** An ADTS (raw AAC) frame header: sync, layer 0, a sampling index that exists. */
function isAdtsFrame(head: Buffer): boolean {
  return head.length >= 7 && head[0] === 0xff && (head[1] & 0xf6) === 0xf0 && ((head[2] >> 2) & 0x0f) < 13;
}

/** MPEG transport stream: a sync byte every 188 bytes (TS), or every 192 after a 4-byte time code (M2TS, .mts). */
function isTransportStream(head: Buffer): boolean {
  const syncs = (first: number, step: number) =>
    head.length > first + 2 * step && [0, 1, 2].every((i) => head[first + i * step] === 0x47);
  return syncs(0, 188) || syncs(4, 192);
}

/**
 * The Content-Type of a recording from its first bytes (pass RECORDING_SNIFF_BYTES when the file is that long),
 * as `kind` where the container holds either (an MP4, WebM, Matroska or Ogg voice note is audio/...). Null for
 * anything that is not a video or audio container this service takes: text, HTML, images, PDFs, archives, empty
 * input and headers too short to tell.
 */
export function recordingContentType(head: Buffer | Uint8Array, kind: UploadKind): string | null {
  const buf = Buffer.isBuffer(head) ? head : Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (buf.length < 12) return null;
  const box = text(buf, 4, 8);
  if (box === 'ftyp' && buf.readUInt32BE(0) >= 8) return isoBmffType(buf, kind);
  if (QUICKTIME_ATOMS.has(box) && buf.readUInt32BE(0) >= 8) return kind === 'audio' ? 'audio/mp4' : 'video/quicktime';
  if (buf.readUInt32BE(0) === 0x1a45dfa3) return matroskaType(buf, kind);
  if (text(buf, 0, 4) === 'RIFF') {
    const form = text(buf, 8, 12);
    if (form === 'AVI ') return 'video/x-msvideo';
    if (form === 'WAVE') return 'audio/wav';
    return null;
  }
  if (text(buf, 0, 4) === 'OggS') return `${kind}/ogg`;
  if (text(buf, 0, 4) === 'fLaC') return 'audio/flac';
  if (text(buf, 0, 5) === '#!AMR') return 'audio/amr';
  if (text(buf, 0, 3) === 'ID3') return 'audio/mpeg';
  if (isAdtsFrame(buf)) return 'audio/aac';
  if (isMpegAudioFrame(buf)) return 'audio/mpeg';
  if (isTransportStream(buf)) return 'video/mp2t';
  // MPEG program stream (pack header).
  if (buf.readUInt32BE(0) === 0x000001ba) return 'video/mpeg';
  return null;
}
