/**
 * The local stack's one shared build of every handler: a single esbuild pass
 * with every file under functions/ as an entry point and code splitting, so
 * code that several functions use is written once, in chunks they share
 * (ES modules, .local/build/handlers). It takes a few seconds where bundling
 * each of ~165 functions on its own took minutes, and it is reused until a
 * source file, the lock file or tsconfig.json changes
 * (functions/source-fingerprint.js). The modules serverless.yml keeps out of
 * the bundles (custom.esbuild.external: native and data-reading packages)
 * load from node_modules. `serverless package` and deployment still give each
 * function its own bundle (functions/package-bundles.js).
 */
const fs = require('node:fs');
const path = require('node:path');
const { sourceFingerprint } = require('../functions/source-fingerprint');
const { loadServerlessConfig } = require('./provision');

const root = path.join(__dirname, '..');
const OUT_DIR = path.join(root, '.local', 'build', 'handlers');
const STAMP = 'sources.sha1';

// The bundles are ES modules (code splitting needs them), but bundled
// CommonJS packages and lib/ still call require(): give every output file one.
const REQUIRE_BANNER =
  "import { createRequire as __createRequireOfBuild } from 'node:module'; const require = __createRequireOfBuild(import.meta.url);";

function readStamp(outDir) {
  try {
    return fs.readFileSync(path.join(outDir, STAMP), 'utf8');
  } catch {
    return null;
  }
}

/** esbuild options: serverless.yml's bundling settings, every handler at once, split. */
function buildOptions(files, base, outDir, sourceMaps) {
  const { esbuild = {} } = loadServerlessConfig().custom ?? {};
  return {
    entryPoints: files.filter((file) => file.startsWith(`functions${path.sep}`)).map((file) => path.join(base, file)),
    outdir: outDir,
    outbase: base,
    absWorkingDir: base,
    bundle: true,
    splitting: true,
    format: 'esm',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'node',
    // The machine's Node runs it, whatever runtime serverless.yml names for Lambda.
    target: `node${process.versions.node.split('.')[0]}`,
    mainFields: esbuild.mainFields,
    external: esbuild.external,
    banner: { js: REQUIRE_BANNER },
    // npm start runs serverless offline with --enable-source-maps: stack traces point at the TypeScript.
    // The test and benchmark stacks go without: every worker thread would parse the maps of what it loads.
    sourcemap: sourceMaps,
    logLevel: 'silent',
  };
}

/**
 * Brings .local/build/handlers up to date with the sources.
 * A build goes to a new directory first and replaces the old one with two
 * renames, so a stack starting meanwhile never loads a half-written tree.
 *
 * @param {object} [options]
 * @param {(line: string) => void} [options.log]
 * @param {boolean} [options.sourceMaps]  write source maps (npm start)
 * @param {boolean} [options.force]  rebuild even when the stamp matches
 * @param {string} [options.base]  the tree to build (the repository root)
 * @param {string} [options.outDir]
 * @returns {{ outDir: string, built: boolean, entries: number, ms: number }}
 */
function ensureHandlerBuild({ log = () => {}, sourceMaps = false, force = false, base = root, outDir = OUT_DIR } = {}) {
  const started = Date.now();
  const { files, hash: sourcesHash } = sourceFingerprint(base);
  const hash = `${sourcesHash}${sourceMaps ? ' with source maps' : ''}`;
  const entries = files.filter((file) => file.startsWith(`functions${path.sep}`)).length;
  if (!force && readStamp(outDir) === hash) return { outDir, built: false, entries, ms: Date.now() - started };

  log(
    `building the functions: one shared build of ${entries} handler files and ${files.length - entries} lib files into ${path.relative(base, outDir)}…`,
  );
  const parent = path.dirname(outDir);
  fs.mkdirSync(parent, { recursive: true });
  const staging = fs.mkdtempSync(path.join(parent, `.${path.basename(outDir)}-`));
  try {
    require('esbuild').buildSync(buildOptions(files, base, staging, sourceMaps));
    fs.writeFileSync(path.join(staging, STAMP), hash);
    const old = `${staging}-old`;
    if (fs.existsSync(outDir)) fs.renameSync(outDir, old);
    fs.renameSync(staging, outDir);
    fs.rmSync(old, { recursive: true, force: true });
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    const first = (err.errors ?? []).slice(0, 5).map((e) => `${e.location?.file}:${e.location?.line}: ${e.text}`);
    throw new Error(`could not build the functions:\n${first.join('\n') || err.message}`);
  }
  const ms = Date.now() - started;
  log(`built the functions in ${(ms / 1000).toFixed(1)} s`);
  return { outDir, built: true, entries, ms };
}

module.exports = { ensureHandlerBuild, OUT_DIR };
