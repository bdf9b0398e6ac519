/**
 * The local stack's one shared build of every handler: a single esbuild pass
 * with every file under functions/ as an entry point and code splitting, so
 * code that several functions use is written once, in chunks they share
 * (ES modules, .local/build/handlers). It takes a few seconds where bundling
 * each of ~165 functions on its own took minutes, and it is reused until a
 * source file, the lock file or tsconfig.json changes
 * (deploy/source-fingerprint.js). The modules serverless.yml keeps out of
 * the bundles (custom.esbuild.external: native and data-reading packages)
 * load from node_modules. `serverless package` and deployment still give each
 * function its own bundle (deploy/package-bundles.js).
 */
const fs = require('node:fs');
const path = require('node:path');
const { sourceFingerprint } = require('../../deploy/source-fingerprint');
const { loadServerlessConfig } = require('../../deploy/serverless-config');

const root = path.join(__dirname, '..', '..');
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
function buildOptions(handlerFiles, outDir, sourceMaps) {
  const { esbuild = {} } = loadServerlessConfig().custom ?? {};
  return {
    entryPoints: handlerFiles.map((file) => path.join(root, file)),
    outdir: outDir,
    outbase: root,
    absWorkingDir: root,
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
 * @returns {{ outDir: string, built: boolean, entries: number }}
 */
function ensureHandlerBuild({ log = () => {}, sourceMaps = false } = {}) {
  const started = Date.now();
  const { files, hash: sourcesHash } = sourceFingerprint();
  const hash = `${sourcesHash}${sourceMaps ? ' with source maps' : ''}`;
  const handlerFiles = files.filter((file) => file.startsWith(`functions${path.sep}`));
  const entries = handlerFiles.length;
  if (readStamp(OUT_DIR) === hash) return { outDir: OUT_DIR, built: false, entries };

  log(
    `building the functions: one shared build of ${entries} handler files and ${files.length - entries} lib files into ${path.relative(root, OUT_DIR)}…`,
  );
  const parent = path.dirname(OUT_DIR);
  fs.mkdirSync(parent, { recursive: true });
  const staging = fs.mkdtempSync(path.join(parent, `.${path.basename(OUT_DIR)}-`));
  try {
    require('esbuild').buildSync(buildOptions(handlerFiles, staging, sourceMaps));
    fs.writeFileSync(path.join(staging, STAMP), hash);
    const old = `${staging}-old`;
    if (fs.existsSync(OUT_DIR)) fs.renameSync(OUT_DIR, old);
    fs.renameSync(staging, OUT_DIR);
    fs.rmSync(old, { recursive: true, force: true });
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    const first = (err.errors ?? []).slice(0, 5).map((e) => `${e.location?.file}:${e.location?.line}: ${e.text}`);
    throw new Error(`could not build the functions:\n${first.join('\n') || err.message}`);
  }
  log(`built the functions in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { outDir: OUT_DIR, built: true, entries };
}

/** The PDF sandbox's child in a build (lib/pdf/sandbox.ts runs it for every PDF a function reads). */
const pdfSandboxEntryIn = (outDir = OUT_DIR) => path.join(outDir, 'functions', 'sandbox', 'pdf-reader.mjs');

/** The file a finished build writes last: another process following the build watches it. */
const buildStampIn = (outDir = OUT_DIR) => path.join(outDir, STAMP);

module.exports = { ensureHandlerBuild, pdfSandboxEntryIn, buildStampIn };
