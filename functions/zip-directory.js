/**
 * Writes a directory as a zip the way Lambda unpacks a layer: regular files
 * only, each with its unix mode (ffmpeg keeps its executable bit), in a fixed
 * order with a fixed timestamp. The same contents always give the same bytes,
 * so the hash serverless takes of a layer zip (to skip uploading an unchanged
 * layer on deploy) only changes when the contents do.
 */
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

const LOCAL_FILE_HEADER = 0x04034b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const VERSION = 20;
/** "Made by" a unix system, so readers take the mode from the external attributes. */
const MADE_BY_UNIX = (3 << 8) | VERSION;
const UTF8_NAMES = 0x0800;
const STORED = 0;
const DEFLATED = 8;
/** 1980-01-01 00:00, the earliest DOS date: no build time leaks into the bytes. */
const DOS_DATE = (1 << 5) | 1;
const DOS_TIME = 0;
/** No ZIP64: a layer stays far below these (Lambda allows 250 MB unzipped). */
const MAX_ENTRIES = 0xffff;
const MAX_OFFSET = 0xffffffff;

/** Relative paths of every file under `dir`, sorted; a symlink or special file is refused. */
function filesUnder(dir) {
  const files = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isDirectory()) continue;
    const file = path.relative(dir, path.join(entry.parentPath, entry.name));
    if (!entry.isFile()) throw new Error(`zip: ${file} is not a regular file`);
    files.push(file.split(path.sep).join('/'));
  }
  return files.sort();
}

function header(fields) {
  const size = fields.reduce((sum, [bytes]) => sum + bytes, 0);
  const buffer = Buffer.alloc(size);
  let at = 0;
  for (const [bytes, value] of fields) {
    if (bytes === 2) buffer.writeUInt16LE(value, at);
    else buffer.writeUInt32LE(value, at);
    at += bytes;
  }
  return buffer;
}

/** Zips every file under `dir` into `zipFile`; returns the number of files and their unzipped size. */
function zipDirectory(dir, zipFile) {
  const files = filesUnder(dir);
  if (files.length > MAX_ENTRIES) throw new Error(`zip: ${files.length} files in ${dir}, more than a zip holds`);
  const central = [];
  let offset = 0;
  let unzipped = 0;
  const fd = fs.openSync(zipFile, 'w');
  const write = (buffer) => {
    fs.writeSync(fd, buffer);
    offset += buffer.length;
  };
  try {
    for (const file of files) {
      const full = path.join(dir, file);
      const data = fs.readFileSync(full);
      const deflated = zlib.deflateRawSync(data, { level: 9 });
      const method = deflated.length < data.length ? DEFLATED : STORED;
      const body = method === DEFLATED ? deflated : data;
      const name = Buffer.from(file, 'utf8');
      const mode = fs.statSync(full).mode & 0o111 ? 0o100755 : 0o100644;
      const common = [
        [2, UTF8_NAMES],
        [2, method],
        [2, DOS_TIME],
        [2, DOS_DATE],
        [4, zlib.crc32(data)],
        [4, body.length],
        [4, data.length],
        [2, name.length],
        [2, 0],
      ];
      if (offset + body.length > MAX_OFFSET) throw new Error(`zip: ${zipFile} would pass 4 GB`);
      central.push(
        Buffer.concat([
          header([
            [4, CENTRAL_FILE_HEADER],
            [2, MADE_BY_UNIX],
            [2, VERSION],
            ...common,
            [2, 0],
            [2, 0],
            [2, 0],
            [4, (mode << 16) >>> 0],
            [4, offset],
          ]),
          name,
        ]),
      );
      write(Buffer.concat([header([[4, LOCAL_FILE_HEADER], [2, VERSION], ...common]), name]));
      write(body);
      unzipped += data.length;
    }
    const directory = Buffer.concat(central);
    const directoryOffset = offset;
    write(directory);
    write(
      header([
        [4, END_OF_CENTRAL_DIRECTORY],
        [2, 0],
        [2, 0],
        [2, files.length],
        [2, files.length],
        [4, directory.length],
        [4, directoryOffset],
        [2, 0],
      ]),
    );
  } finally {
    fs.closeSync(fd);
  }
  return { files: files.length, unzipped };
}

module.exports = { zipDirectory };
