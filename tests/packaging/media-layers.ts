/**
 * The media layers in the packaged service (deploy/layers.js builds them,
 * serverless.yml declares them), checked on the one `serverless package` run
 * of packaging.test.ts: what each layer zip holds (linux-arm64 binaries with
 * their executable bit, sharp's and @napi-rs/canvas's native builds, pdfkit
 * with its fonts and the report's Noto fonts (the report made from the layer
 * as Lambda loads it), pdf.js's legacy build with its data, laid out where Lambda
 * looks), Swagger UI's files for the API reference, which functions carry
 * which layer, and Lambda's limits for a function with its layers.
 */
import { execFileSync, fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { PDFDocument, StandardFonts } from '@cantoo/pdf-lib';
import { loadServerlessConfig } from '../../deploy/serverless-config';
import { fontFile, REPORT_FONTS } from '../../lib/exports/report-fonts-view';
import { kib, type PackageRun, type TemplateFile, table } from '../support/packaging';
import { extractZip, readZipEntry, unzippedSize, zipEntries } from '../support/zip-entries';

const repoModules = path.join(__dirname, '..', '..', 'node_modules');
/** A report face's file, relative to node_modules (@embedpdf/fonts-latin/fonts/NotoSans-Regular.ttf). */
function fontPath(face: (typeof REPORT_FONTS)[number], weight: 'regular' | 'bold'): string {
  return path
    .relative(fs.realpathSync(repoModules), fs.realpathSync(fontFile(face, weight)))
    .split(path.sep)
    .join('/');
}
function fontPackage(face: (typeof REPORT_FONTS)[number]): string {
  return fontPath(face, 'regular').split('/').slice(0, 2).join('/');
}

/** Lambda: a function's code plus all its layers, unzipped. */
const LAMBDA_UNZIPPED_LIMIT = 250 * 1024 * 1024;
const LAMBDA_MAX_LAYERS = 5;
const LAYER_IDS: Record<string, string> = {
  ffmpeg: 'FfmpegLambdaLayer',
  ffprobe: 'FfprobeLambdaLayer',
  sharp: 'SharpLambdaLayer',
  pdfkit: 'PdfkitLambdaLayer',
  pdfjs: 'PdfjsLambdaLayer',
  swaggerUi: 'SwaggerUiLambdaLayer',
};

/** What each media worker runs: ffmpeg/ffprobe as processes, sharp, pdfkit and pdf.js as modules. */
const EXPECTED_LAYERS: Record<string, string[]> = {
  stageWorker: ['ffmpeg', 'ffprobe', 'sharp', 'pdfjs'],
  unitWorker: ['ffmpeg', 'ffprobe', 'sharp', 'pdfjs'],
  probeWorker: ['ffprobe'],
  photoWorker: ['sharp'],
  exportWorker: ['sharp', 'pdfkit'],
  // The one HTTP route that decodes images: a homeowner photo's 640 px thumbnail, made on first request.
  insuredFileThumb: ['sharp'],
  // The API reference's script and stylesheet, read from swagger-ui-dist (lib/http/api-reference-assets.ts).
  apiReferenceAsset: ['swaggerUi'],
};

/** The layer that provides each module the bundles leave out (custom.esbuild.external). */
const LAYER_OF_MODULE: Record<string, string> = {
  sharp: 'sharp',
  pdfkit: 'pdfkit',
  fontkit: 'pdfkit',
  ...Object.fromEntries(REPORT_FONTS.map((face) => [fontPackage(face), 'pdfkit'])),
  '@napi-rs/canvas': 'pdfjs',
  'pdfjs-dist': 'pdfjs',
  'swagger-ui-dist': 'swaggerUi',
};

/**
 * Modules loaded by a resolved path, which esbuild does not record as an import: a bundle naming the path loads
 * the module (lib/pdf/pdfjs.ts imports pdf.js so; lib/http/api-reference-assets.ts reads Swagger UI's files so).
 */
const RESOLVED_IN_BUNDLE: Record<string, string> = {
  'pdfjs-dist/legacy/build/pdf': 'pdfjs-dist',
  'swagger-ui-dist/package.json': 'swagger-ui-dist',
};

/** Functions whose bundle names a layer's modules without ever loading them, each with the reason. */
const NAMES_WITHOUT_LOADING: Record<string, string[]> = {
  // It imports every pipeline for its declarations; sharp, pdf.js and the canvas are loaded inside stages,
  // which it never runs.
  watchdog: ['sharp', 'pdfjs'],
};

const installedVersion = (pkg: string): string =>
  JSON.parse(fs.readFileSync(path.join(repoModules, pkg, 'package.json'), 'utf8')).version;

const ELF_MACHINE_AARCH64 = 183;
const isArm64Elf = (bytes: Buffer) =>
  bytes.subarray(0, 4).equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46])) &&
  bytes[4] === 2 &&
  bytes.readUInt16LE(18) === ELF_MACHINE_AARCH64;

interface Packaged {
  run: PackageRun;
  root: TemplateFile;
  nested: TemplateFile[];
  manifest: Record<string, { events?: Record<string, unknown>[] }>;
}

export function describeMediaLayers(get: () => Packaged): void {
  const zips = new Map<string, Buffer>();
  const read = (file: string) => {
    if (!zips.has(file)) zips.set(file, fs.readFileSync(file));
    return zips.get(file) as Buffer;
  };
  /** What the packaged service records for a layer (serverless-state.json). */
  const layerState = (name: string) => {
    const state = JSON.parse(fs.readFileSync(path.join(get().run.packageDir, 'serverless-state.json'), 'utf8'));
    // An object met twice is written once, then as {"$ref": "$[\"service\"][\"…\"]…"} naming its first place.
    const deref = (value: unknown): unknown => {
      const ref = (value as { $ref?: unknown } | undefined)?.$ref;
      if (typeof ref !== 'string') return value;
      return [...ref.matchAll(/\["([^"]+)"\]/g)].reduce<unknown>(
        (node, [, key]) => (node as Record<string, unknown> | undefined)?.[key],
        state,
      );
    };
    const layers = deref(state.service.layers) as Record<string, unknown>;
    return deref(layers[name]) as { path?: string; package?: { artifact?: string } };
  };
  /** A layer's zip: the ready one its artifact names, relative to the service. */
  const zip = (layer: string) => read(path.resolve(get().run.serviceDir, String(layerState(layer)?.package?.artifact)));
  const functionZip = (name: string) => read(path.join(get().run.packageDir, `${name}.zip`));
  const entry = (layer: string, name: string) => zipEntries(zip(layer)).find((e) => e.name === name);

  /** function name → its layer names, read from the Lambda resources (through nested stack parameters). */
  const layersByFunction = () => {
    const { root, nested } = get();
    const byId = Object.fromEntries(Object.entries(LAYER_IDS).map(([name, id]) => [id, name]));
    const result = new Map<string, { layers: string[]; environment: Record<string, unknown> }>();
    for (const { file, template } of [root, ...nested]) {
      const stack = Object.values(root.template.Resources).find((r) => {
        const url = (r.Properties?.TemplateURL as { 'Fn::Join'?: [string, unknown[]] } | undefined)?.['Fn::Join']?.[1];
        return r.Type === 'AWS::CloudFormation::Stack' && url?.[url.length - 1] === file;
      });
      const resolve = (value: unknown): unknown => {
        const ref = (value as { Ref?: string }).Ref;
        const passed = ref && (stack?.Properties?.Parameters as Record<string, unknown> | undefined)?.[ref];
        return passed ?? value;
      };
      for (const resource of Object.values(template.Resources)) {
        if (resource.Type !== 'AWS::Lambda::Function') continue;
        const name = String(resource.Properties?.FunctionName).replace(/^contents-inventory-ci-/, '');
        const refs = ((resource.Properties?.Layers as unknown[] | undefined) ?? []).map(resolve);
        result.set(name, {
          layers: refs.map((r) => byId[(r as { Ref?: string }).Ref ?? ''] ?? JSON.stringify(r)).sort(),
          environment:
            (resource.Properties?.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {},
        });
      }
    }
    return result;
  };

  describe('media layers', () => {
    it('declares every media layer for arm64 and the functions runtime', () => {
      const resources = get().root.template.Resources;
      for (const id of Object.values(LAYER_IDS)) {
        const props = resources[id]?.Properties;
        expect([id, resources[id]?.Type, props?.CompatibleArchitectures, props?.CompatibleRuntimes]).toEqual([
          id,
          'AWS::Lambda::LayerVersion',
          ['arm64'],
          ['nodejs22.x'],
        ]);
      }
    });

    it('uses the ready zips in .layers/ as they are, without zipping any layer again', () => {
      const resources = get().root.template.Resources;
      for (const [name, id] of Object.entries(LAYER_IDS)) {
        const { path: contents, package: packaged } = layerState(name);
        expect([name, contents, packaged]).toEqual([name, undefined, { artifact: `.layers/${name}.zip` }]);
        const s3Key = (resources[id]?.Properties?.Content as { S3Key?: string } | undefined)?.S3Key;
        expect([name, s3Key?.endsWith(`/${name}.zip`)]).toEqual([name, true]);
        expect([name, fs.existsSync(path.join(get().run.packageDir, `${name}.zip`))]).toEqual([name, false]);
      }
    });

    it('puts executable linux-arm64 ffmpeg and ffprobe in bin/ (Lambda: /opt/bin)', () => {
      for (const binary of ['ffmpeg', 'ffprobe']) {
        const found = entry(binary, `bin/${binary}`);
        expect([binary, found && (found.mode & 0o111) === 0o111]).toEqual([binary, true]);
        const bytes = readZipEntry(zip(binary), found as NonNullable<typeof found>);
        expect([binary, isArm64Elf(bytes), bytes.length > 10 * 1024 * 1024]).toEqual([binary, true, true]);
        // Both read uploads through presigned HTTPS URLs; the audio track is encoded with libopus.
        expect([binary, bytes.includes('--enable-gnutls')]).toEqual([binary, true]);
        if (binary === 'ffmpeg') expect(bytes.includes('--enable-libopus')).toBe(true);
      }
    });

    it("puts sharp at this checkout's version with its linux-arm64 build and libvips in nodejs/node_modules", () => {
      const installed = path.join(__dirname, '..', '..', 'node_modules', 'sharp', 'package.json');
      const { version } = JSON.parse(fs.readFileSync(installed, 'utf8')) as { version: string };
      const modules = 'nodejs/node_modules';
      const pkg = entry('sharp', `${modules}/sharp/package.json`);
      expect(JSON.parse(readZipEntry(zip('sharp'), pkg as NonNullable<typeof pkg>).toString()).version).toBe(version);
      const native = entry('sharp', `${modules}/@img/sharp-linux-arm64/lib/sharp-linux-arm64-${version}.node`);
      expect(native && isArm64Elf(readZipEntry(zip('sharp'), native))).toBe(true);
      const libvips = zipEntries(zip('sharp')).filter((e) =>
        /^nodejs\/node_modules\/@img\/sharp-libvips-linux-arm64\/lib\/libvips-cpp\.so/.test(e.name),
      );
      expect(libvips).toHaveLength(1);
      expect(isArm64Elf(readZipEntry(zip('sharp'), libvips[0]))).toBe(true);
      const platforms = new Set(
        zipEntries(zip('sharp'))
          .map((e) => /^nodejs\/node_modules\/@img\/(sharp-[^/]+)\//.exec(e.name)?.[1])
          .filter(Boolean),
      );
      expect([...platforms].sort()).toEqual(['sharp-libvips-linux-arm64', 'sharp-linux-arm64']);
    });

    it('ships pdfkit with its fonts so that a require through NODE_PATH (as in Lambda) writes a PDF', () => {
      expect(entry('pdfkit', 'nodejs/node_modules/pdfkit/js/data/Helvetica.afm')).toBeDefined();
      // Lambda's NODE_PATH includes /opt/nodejs/node_modules; nothing else may resolve it here.
      const opt = fs.mkdtempSync(path.join(os.tmpdir(), 'media-layer-opt-'));
      try {
        extractZip(zip('pdfkit'), opt);
        extractZip(zip('sharp'), opt);
        const script = `
          const resolved = ['pdfkit', 'sharp'].map((m) => require.resolve(m));
          const PDFDocument = require('pdfkit');
          const doc = new PDFDocument();
          const chunks = [];
          doc.on('data', (c) => chunks.push(c));
          doc.on('end', () => console.log(JSON.stringify({ resolved, head: Buffer.concat(chunks).subarray(0, 5).toString() })));
          doc.font('Helvetica-Bold').text('Living room: sofa');
          doc.end();`;
        const out = execFileSync(process.execPath, ['-e', script], {
          cwd: opt,
          env: { PATH: process.env.PATH, NODE_PATH: path.join(opt, 'nodejs', 'node_modules') },
          encoding: 'utf8',
        });
        const { resolved, head } = JSON.parse(out) as { resolved: string[]; head: string };
        expect(head).toBe('%PDF-');
        for (const file of resolved) expect(file.startsWith(path.join(opt, 'nodejs', 'node_modules'))).toBe(true);
      } finally {
        fs.rmSync(opt, { recursive: true, force: true });
      }
    });

    it('ships the fonts the report reads, and only those, where it finds them in Lambda', () => {
      const names = zipEntries(zip('pdfkit')).map((e) => e.name);
      const files = REPORT_FONTS.flatMap((face) => [fontPath(face, 'regular'), fontPath(face, 'bold')]);
      for (const file of files) expect([file, names.includes(`nodejs/node_modules/${file}`)]).toEqual([file, true]);
      const shipped = names.filter((n) => /\.(ttf|otf)$/.test(n) && n.startsWith('nodejs/node_modules/@embedpdf/'));
      expect(shipped.sort()).toEqual(files.map((file) => `nodejs/node_modules/${file}`).sort());
      expect(entry('pdfkit', 'nodejs/node_modules/fontkit/package.json')).toBeDefined();
    });

    it('makes a report with names in every script from the pdfkit layer through NODE_PATH (as in Lambda)', () => {
      const opt = fs.mkdtempSync(path.join(os.tmpdir(), 'media-layer-opt-'));
      try {
        extractZip(zip('pdfkit'), opt);
        // The report's code bundled as the package hook bundles a function (custom.esbuild), outside the checkout.
        const { external, mainFields, target } = loadServerlessConfig().custom.esbuild;
        buildSync({
          entryPoints: [path.join(__dirname, '..', '..', 'lib', 'exports', 'report-view.ts')],
          outfile: path.join(opt, 'report.js'),
          bundle: true,
          platform: 'node',
          format: 'cjs',
          target,
          mainFields,
          external,
          logLevel: 'error',
        });
        const names = ['Диван', 'Καναπές', 'طاولة خشبية', 'שולחן', '台灯 デスクランプ', '냉장고', 'Café Ñandú'];
        const script = `
          const { reportFile } = require('./report.js');
          const items = ${JSON.stringify(names)}.map((name, i) => ({ id: 'i' + i, item_number: i + 1, name, quantity: 1,
            condition: null, estimated_price: 1 }));
          const content = { claim: { claim_number: 'T-1', insured_name: null, adjuster_name: null, loss_type: null },
            scopeLabel: 'Whole claim', approvedOnly: false, generatedAt: new Date(), rooms: [{ roomId: 'r', name: 'Кухня 厨房', items }] };
          reportFile(content, new Map()).then((pdf) => {
            require('node:fs').writeFileSync('report.pdf', pdf);
            console.log(JSON.stringify(['pdfkit', 'fontkit', '@embedpdf/fonts-sc'].map((m) => require.resolve(m))));
          });`;
        const out = execFileSync(process.execPath, ['-e', script], {
          cwd: opt,
          env: { PATH: process.env.PATH, NODE_PATH: path.join(opt, 'nodejs', 'node_modules') },
          encoding: 'utf8',
        });
        for (const file of JSON.parse(out) as string[])
          expect(file.startsWith(path.join(opt, 'nodejs', 'node_modules'))).toBe(true);
        const text = execFileSync('pdftotext', [path.join(opt, 'report.pdf'), '-'])
          .toString()
          .replace(/[\u202a-\u202e]/g, '');
        for (const name of [...names, 'Кухня 厨房']) expect([name, text.includes(name)]).toEqual([name, true]);
      } finally {
        fs.rmSync(opt, { recursive: true, force: true });
      }
    });

    it("puts pdf.js's legacy build with its data and @napi-rs/canvas with only its linux-arm64 glibc build in nodejs/node_modules", () => {
      const modules = 'nodejs/node_modules';
      const versionIn = (pkg: string) => {
        const found = entry('pdfjs', `${modules}/${pkg}/package.json`);
        return JSON.parse(readZipEntry(zip('pdfjs'), found as NonNullable<typeof found>).toString()).version;
      };
      expect(versionIn('pdfjs-dist')).toBe(installedVersion('pdfjs-dist'));
      const canvasVersion = installedVersion('@napi-rs/canvas');
      expect([versionIn('@napi-rs/canvas'), versionIn('@napi-rs/canvas-linux-arm64-gnu')]).toEqual([
        canvasVersion,
        canvasVersion,
      ]);
      const native = entry('pdfjs', `${modules}/@napi-rs/canvas-linux-arm64-gnu/skia.linux-arm64-gnu.node`);
      expect(native && isArm64Elf(readZipEntry(zip('pdfjs'), native))).toBe(true);
      const names = zipEntries(zip('pdfjs')).map((e) => e.name);
      const canvasPackages = new Set(names.map((n) => /^nodejs\/node_modules\/@napi-rs\/([^/]+)\//.exec(n)?.[1]));
      canvasPackages.delete(undefined);
      expect([...canvasPackages].sort()).toEqual(['canvas', 'canvas-linux-arm64-gnu']);
      for (const file of [
        'legacy/build/pdf.mjs',
        'legacy/build/pdf.worker.mjs',
        'standard_fonts/LiberationSans-Regular.ttf',
      ])
        expect([file, names.includes(`${modules}/pdfjs-dist/${file}`)]).toEqual([file, true]);
      for (const dir of ['cmaps', 'iccs', 'wasm'])
        expect([dir, names.some((n) => n.startsWith(`${modules}/pdfjs-dist/${dir}/`))]).toEqual([dir, true]);
      // What never runs stays out: the modern build, the viewer, the types and the source maps.
      const unused = names.filter((n) =>
        /^nodejs\/node_modules\/pdfjs-dist\/(build|web|types|legacy\/web)\/|\.map$/.test(n),
      );
      expect(unused).toEqual([]);
    });

    it("carries this checkout's fix to pdf.js's worker: the layer's worker is the installed, patched one", () => {
      const file = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
      const found = entry('pdfjs', `nodejs/node_modules/${file}`);
      const inLayer = readZipEntry(zip('pdfjs'), found as NonNullable<typeof found>);
      const installed = fs.readFileSync(path.join(repoModules, file));
      expect(installed.includes('kidDict.catch(() => {})')).toBe(true);
      expect(Buffer.compare(inLayer, installed)).toBe(0);
    });

    /**
     * The pdfjs layer unzipped into `opt`, its arm64 canvas build swapped for this machine's build of the same
     * version; answers the layer's node_modules (what NODE_PATH names in Lambda).
     */
    const pdfjsLayerHere = (opt: string) => {
      const canvasDir = path.join(repoModules, '@napi-rs', 'canvas');
      const { optionalDependencies } = JSON.parse(fs.readFileSync(path.join(canvasDir, 'package.json'), 'utf8')) as {
        optionalDependencies: Record<string, string>;
      };
      const hostBuilds = Object.keys(optionalDependencies).filter((pkg) => fs.existsSync(path.join(repoModules, pkg)));
      expect(hostBuilds.length).toBeGreaterThan(0);
      extractZip(zip('pdfjs'), opt);
      const layerModules = path.join(opt, 'nodejs', 'node_modules');
      fs.rmSync(path.join(layerModules, '@napi-rs', 'canvas-linux-arm64-gnu'), { recursive: true });
      for (const pkg of hostBuilds)
        fs.cpSync(path.join(repoModules, pkg), path.join(layerModules, pkg), { recursive: true });
      return layerModules;
    };

    it("reads and renders a page with the pdfjs layer's modules required through NODE_PATH (as in Lambda)", async () => {
      const opt = fs.mkdtempSync(path.join(os.tmpdir(), 'media-layer-opt-'));
      try {
        const layerModules = pdfjsLayerHere(opt);
        const pdf = await PDFDocument.create();
        const font = await pdf.embedFont(StandardFonts.HelveticaBold);
        pdf.addPage([400, 200]).drawText('Living room: sofa', { x: 20, y: 100, size: 24, font });
        fs.writeFileSync(path.join(opt, 'list.pdf'), await pdf.save());
        // As lib/pdf/pdfjs.ts and lib/pdf/render.ts load them; pdf.js finds the canvas on its own for its DOMMatrix.
        const script = `
          const fs = require('node:fs');
          const path = require('node:path');
          (async () => {
            globalThis.pdfjsWorker = await import(require.resolve('pdfjs-dist/legacy/build/pdf.worker.mjs'));
            const pdfjs = await import(require.resolve('pdfjs-dist/legacy/build/pdf.mjs'));
            const root = path.dirname(require.resolve('pdfjs-dist/package.json'));
            const dir = (name) => path.join(root, name) + path.sep;
            const doc = await pdfjs.getDocument({
              data: new Uint8Array(fs.readFileSync('list.pdf')),
              standardFontDataUrl: dir('standard_fonts'), wasmUrl: dir('wasm'), iccUrl: dir('iccs'), cMapUrl: dir('cmaps'),
              isEvalSupported: false, verbosity: pdfjs.VerbosityLevel.ERRORS,
            }).promise;
            const page = await doc.getPage(1);
            const text = (await page.getTextContent()).items.map((item) => item.str).join('');
            const { createCanvas } = require('@napi-rs/canvas');
            const viewport = page.getViewport({ scale: 2 });
            const canvas = createCanvas(viewport.width, viewport.height);
            const context = canvas.getContext('2d');
            await page.render({ canvas, canvasContext: context, viewport, background: '#ffffff' }).promise;
            const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
            let dark = 0;
            for (let i = 0; i < pixels.length; i += 4) if (pixels[i] < 128) dark++;
            const jpeg = await canvas.encode('jpeg', 90);
            const resolved = ['pdfjs-dist/legacy/build/pdf.mjs', '@napi-rs/canvas'].map((m) => require.resolve(m));
            console.log(JSON.stringify({ resolved, text, dark, head: jpeg.subarray(0, 3).toString('hex') }));
          })().catch((error) => { console.error(error); process.exit(1); });`;
        const out = execFileSync(process.execPath, ['-e', script], {
          cwd: opt,
          env: { PATH: process.env.PATH, NODE_PATH: layerModules },
          encoding: 'utf8',
        });
        const { resolved, text, dark, head } = JSON.parse(out) as {
          resolved: string[];
          text: string;
          dark: number;
          head: string;
        };
        expect([text, head]).toEqual(['Living room: sofa', 'ffd8ff']);
        // The text is drawn: some hundreds of dark pixels on an 800 × 400 white page.
        expect(dark).toBeGreaterThan(500);
        for (const file of resolved) expect(file.startsWith(layerModules)).toBe(true);
      } finally {
        fs.rmSync(opt, { recursive: true, force: true });
      }
    });

    it("runs the PDF sandbox's child from the stage worker's own zip, with the pdfjs layer through NODE_PATH (as in Lambda)", async () => {
      const child = 'functions/sandbox/pdf-reader.js';
      for (const name of ['stageWorker', 'unitWorker'])
        expect([name, zipEntries(functionZip(name)).some((e) => e.name === child)]).toEqual([name, true]);
      expect(zipEntries(functionZip('getClaim')).some((e) => e.name === child)).toBe(false);
      const opt = fs.mkdtempSync(path.join(os.tmpdir(), 'media-layer-opt-'));
      const task = fs.mkdtempSync(path.join(os.tmpdir(), 'function-root-'));
      try {
        const layerModules = pdfjsLayerHere(opt);
        // The stage worker's sharp layer is an arm64 build: this machine's sharp stands in for it, as the canvas does.
        const sharpHere = path.join(opt, 'host-sharp');
        fs.mkdirSync(sharpHere);
        for (const pkg of ['sharp', '@img']) fs.symlinkSync(path.join(repoModules, pkg), path.join(sharpHere, pkg));
        extractZip(functionZip('stageWorker'), task);
        const pdf = await PDFDocument.create();
        const font = await pdf.embedFont(StandardFonts.HelveticaBold);
        pdf.addPage([400, 200]).drawText('Living room: sofa', { x: 20, y: 100, size: 24, font });
        // The messages lib/pdf/sandbox.ts sends, to the child as Lambda would start it beside the stage worker.
        const reader = fork(path.join(task, child), [], {
          cwd: task,
          env: {
            PATH: process.env.PATH,
            NODE_PATH: [layerModules, sharpHere].join(path.delimiter),
            LAMBDA_TASK_ROOT: task,
          },
          serialization: 'advanced',
          stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        });
        const answers: Record<string, unknown>[] = [];
        const answered = (n: number) =>
          new Promise<void>((resolve, reject) => {
            const check = () => (answers.length >= n ? resolve() : undefined);
            reader.on('message', (m: Record<string, unknown>) => {
              answers.push(m);
              check();
            });
            reader.once('exit', (code) => reject(new Error(`the child exited (${code})`)));
          });
        const done = answered(3);
        reader.send({ type: 'open', document: { bytes: await pdf.save() }, options: {} });
        reader.send({ type: 'call', id: 1, method: 'pageLayout', args: [1] });
        reader.send({ type: 'release' });
        await done;
        // The child waits for its next document until its parent goes.
        reader.disconnect();
        expect(answers[2]).toEqual({ type: 'released' });
        expect(answers[0]).toEqual({
          type: 'opened',
          pageCount: 1,
          producer: 'pdf-lib (https://github.com/Hopding/pdf-lib)',
        });
        expect(answers[1]).toMatchObject({ type: 'result', id: 1, value: { page: 1, width: 400, height: 200 } });
        const layout = answers[1].value as { texts: { str: string }[] };
        expect(layout.texts.map((t) => t.str).join('')).toBe('Living room: sofa');
      } finally {
        fs.rmSync(opt, { recursive: true, force: true });
        fs.rmSync(task, { recursive: true, force: true });
      }
    });

    it("puts Swagger UI's bundle and stylesheet at this checkout's version, and only those, where a require through NODE_PATH finds them", () => {
      const modules = 'nodejs/node_modules/swagger-ui-dist';
      const names = zipEntries(zip('swaggerUi'))
        .map((e) => e.name)
        .filter((n) => n.startsWith(`${modules}/`))
        .map((n) => n.slice(modules.length + 1))
        .sort();
      expect(names).toEqual(['LICENSE', 'NOTICE', 'package.json', 'swagger-ui-bundle.js', 'swagger-ui.css']);
      const opt = fs.mkdtempSync(path.join(os.tmpdir(), 'media-layer-opt-'));
      try {
        extractZip(zip('swaggerUi'), opt);
        // As lib/http/api-reference-assets.ts finds the files.
        const script = `
          const path = require('node:path');
          const fs = require('node:fs');
          const root = path.dirname(require.resolve('swagger-ui-dist/package.json'));
          const { version } = require(path.join(root, 'package.json'));
          const bundle = fs.readFileSync(path.join(root, 'swagger-ui-bundle.js'), 'utf8');
          console.log(JSON.stringify({ root, version, bundle: bundle.includes('SwaggerUIBundle') }));`;
        const out = execFileSync(process.execPath, ['-e', script], {
          cwd: opt,
          env: { PATH: process.env.PATH, NODE_PATH: path.join(opt, 'nodejs', 'node_modules') },
          encoding: 'utf8',
        });
        expect(JSON.parse(out)).toEqual({
          root: path.join(opt, 'nodejs', 'node_modules', 'swagger-ui-dist'),
          version: installedVersion('swagger-ui-dist'),
          bundle: true,
        });
      } finally {
        fs.rmSync(opt, { recursive: true, force: true });
      }
    });

    it('gives each media worker exactly the layers it needs, with the binary paths, and no other function any', () => {
      const actual = layersByFunction();
      expect(actual.size).toBe(Object.keys(get().manifest).length);
      for (const [name, { layers, environment }] of actual) {
        const expected = [...(EXPECTED_LAYERS[name] ?? [])].sort();
        expect([name, layers]).toEqual([name, expected]);
        expect([name, environment.FFMPEG_PATH, environment.FFPROBE_PATH]).toEqual([
          name,
          expected.includes('ffmpeg') ? '/opt/bin/ffmpeg' : undefined,
          expected.includes('ffprobe') ? '/opt/bin/ffprobe' : undefined,
        ]);
      }
      const http = Object.entries(get().manifest).filter(([, fn]) => (fn.events ?? []).some((e) => 'httpApi' in e));
      expect(http.length).toBeGreaterThan(0);
      // HTTP functions carry none, but for the ones listed above.
      for (const [name] of http)
        expect([name, actual.get(name)?.layers]).toEqual([name, [...(EXPECTED_LAYERS[name] ?? [])].sort()]);
    });

    it('gives a layer to every function whose code loads sharp, pdfkit, pdf.js, @napi-rs/canvas or Swagger UI', () => {
      const { profiles } = require(path.join(get().run.serviceDir, 'deploy', 'manifest.js')) as {
        profiles: Record<string, { packages: string[] }>;
      };
      const actual = layersByFunction();
      const missing: string[] = [];
      for (const [name, { packages }] of Object.entries(profiles)) {
        const bundle = zipEntries(functionZip(name))
          .filter((e) => e.name.endsWith('.js'))
          .map((e) => readZipEntry(functionZip(name), e).toString('utf8'))
          .join('\n');
        const named = [
          ...packages.filter((pkg) => LAYER_OF_MODULE[pkg]),
          ...Object.entries(RESOLVED_IN_BUNDLE)
            .filter(([resolved]) => bundle.includes(resolved))
            .map(([, module]) => module),
        ];
        for (const module of named) {
          const layer = LAYER_OF_MODULE[module];
          if (actual.get(name)?.layers.includes(layer) || NAMES_WITHOUT_LOADING[name]?.includes(layer)) continue;
          missing.push(`${name}: ${module}`);
        }
      }
      expect(missing).toEqual([]);
    });

    it("keeps every function's zip plus its layers under Lambda's 250 MB unzipped limit and 5 layers", () => {
      const layerSizes = Object.fromEntries(Object.keys(LAYER_IDS).map((name) => [name, unzippedSize(zip(name))]));
      const rows: (string | number)[][] = [];
      const over: string[] = [];
      for (const [name, { layers }] of layersByFunction()) {
        expect([name, layers.length <= LAMBDA_MAX_LAYERS]).toEqual([name, true]);
        const code = unzippedSize(functionZip(name));
        const total = code + layers.reduce((sum, layer) => sum + layerSizes[layer], 0);
        if (total >= LAMBDA_UNZIPPED_LIMIT) over.push(`${name}: ${kib(total)}`);
        if (layers.length) rows.push([name, layers.join('+'), kib(code), kib(total)]);
      }
      console.log(
        `${table(
          ['layer', 'zip', 'unzipped'],
          Object.keys(LAYER_IDS).map((name) => [name, kib(zip(name).length), kib(layerSizes[name])]),
        )}\n\n${table(['function', 'layers', 'code unzipped', 'with layers'], rows)}`,
      );
      expect(over).toEqual([]);
    });
  });
}
