/**
 * Writes a directory (a layer) or chosen files of one (a function's bundle)
 * as a zip the way Lambda unpacks it: regular files only, each with its unix
 * mode (ffmpeg keeps its executable bit), in sorted order with a fixed timestamp (yazl writes what it is given, nothing of the
 * build machine). The same contents always give the same bytes, so the hash
 * serverless takes of a zip (to skip uploading an unchanged layer or function
 * on deploy) only changes when the contents do.
 */
const fs = require('node:fs');
const path = require('node:path');
const { pipeline } = require('node:stream/promises');
const yazl = require('yazl');

/** 1980-01-01, the earliest date a zip entry can carry: no build time leaks into the bytes. */
const FIXED_MTIME = new Date(1980, 0, 1, 0, 0, 0);

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

/** Zips every file under `dir` into `zipFile`; resolves with the number of files and their unzipped size. */
function zipDirectory(dir, zipFile) {
  return zipFiles(dir, filesUnder(dir), zipFile);
}

/** Zips `files` (paths relative to `dir`, '/'-separated, in the order given) into `zipFile`. */
async function zipFiles(dir, files, zipFile) {
  const zip = new yazl.ZipFile();
  let unzipped = 0;
  for (const file of files) {
    const full = path.join(dir, file);
    const { mode, size } = fs.statSync(full);
    unzipped += size;
    zip.addFile(full, file, { mtime: FIXED_MTIME, mode: mode & 0o111 ? 0o100755 : 0o100644, compress: true });
  }
  zip.end();
  await pipeline(zip.outputStream, fs.createWriteStream(zipFile));
  return { files: files.length, unzipped };
}

module.exports = { zipDirectory, zipFiles };
