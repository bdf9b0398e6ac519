/**
 * One hash of everything the functions are built from: the TypeScript under
 * functions/ and lib/, the locked npm packages, tsconfig.json and the esbuild
 * version. The local stack's shared build (localstack/runtime/handler-build.js) and
 * the manifest's handler analysis (deploy/manifest.js) are reused while
 * it is unchanged. Contents are hashed, not modification times, so a
 * checkout or a copy that keeps every byte keeps the hash.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const SOURCE_DIRS = ['functions', 'lib'];
const BUILD_INPUTS = ['package-lock.json', 'tsconfig.json'];

/** Every .ts source (not declarations) under functions/ and lib/, relative to the root, sorted. */
function sourceFiles() {
  const files = [];
  for (const dir of SOURCE_DIRS)
    for (const entry of fs.readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
      files.push(path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name)));
    }
  return files.sort();
}

/** @returns {{ files: string[], hash: string }} files: the sources, relative to the root */
function sourceFingerprint() {
  const files = sourceFiles();
  const hash = crypto.createHash('sha1').update(`esbuild ${require('esbuild').version}\n`);
  for (const file of [...BUILD_INPUTS, ...files]) {
    const full = path.join(root, file);
    hash.update(`${file}\0`);
    if (fs.existsSync(full)) hash.update(fs.readFileSync(full));
    hash.update('\0');
  }
  return { files, hash: hash.digest('hex') };
}

module.exports = { sourceFingerprint, sourceFiles };
