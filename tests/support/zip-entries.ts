/**
 * Reads a zip's central directory (names, sizes, unix modes) and single
 * entries, enough to check what `serverless package` wrote, or the parts of
 * an xlsx, without an unzip tool on the machine. No ZIP64: Lambda artifacts
 * stay far below 4 GB.
 */
import fs from 'node:fs';
import path from 'node:path';
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** Unzipped bytes. */
  size: number;
  compressedSize: number;
  method: number;
  /** Unix mode from the external attributes (0 when the zip was made elsewhere). */
  mode: number;
  offset: number;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

export function zipEntries(zip: Buffer): ZipEntry[] {
  const signature = Buffer.alloc(4);
  signature.writeUInt32LE(END_OF_CENTRAL_DIRECTORY);
  const end = zip.lastIndexOf(signature);
  if (end < 0) throw new Error('not a zip: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== CENTRAL_FILE_HEADER) throw new Error(`zip: bad central header at ${at}`);
    const nameLength = zip.readUInt16LE(at + 28);
    entries.push({
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
      method: zip.readUInt16LE(at + 10),
      compressedSize: zip.readUInt32LE(at + 20),
      size: zip.readUInt32LE(at + 24),
      mode: zip.readUInt32LE(at + 38) >>> 16,
      offset: zip.readUInt32LE(at + 42),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return entries;
}

/** The bytes of one entry (stored or deflated). */
export function readZipEntry(zip: Buffer, entry: ZipEntry): Buffer {
  if (zip.readUInt32LE(entry.offset) !== LOCAL_FILE_HEADER) throw new Error(`zip: bad local header for ${entry.name}`);
  const start = entry.offset + 30 + zip.readUInt16LE(entry.offset + 26) + zip.readUInt16LE(entry.offset + 28);
  const data = zip.subarray(start, start + entry.compressedSize);
  if (entry.method === 0) return data;
  if (entry.method === 8) return inflateRawSync(data);
  throw new Error(`zip: ${entry.name} uses compression method ${entry.method}`);
}

/** Writes every file entry under `dir`, keeping the executable bit. */
export function extractZip(zip: Buffer, dir: string): void {
  for (const entry of zipEntries(zip)) {
    if (entry.name.endsWith('/')) continue;
    const file = path.join(dir, entry.name);
    if (!file.startsWith(`${dir}${path.sep}`)) throw new Error(`zip: entry outside the target: ${entry.name}`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, readZipEntry(zip, entry), { mode: entry.mode & 0o111 ? 0o755 : 0o644 });
  }
}

/** The sum of the unzipped sizes: what Lambda counts against its 250 MB limit. */
export const unzippedSize = (zip: Buffer) => zipEntries(zip).reduce((sum, e) => sum + e.size, 0);
