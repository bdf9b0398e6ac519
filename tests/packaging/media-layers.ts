/**
 * The media layers in the packaged service (functions/layers.js builds them,
 * serverless.yml declares them), checked on the one `serverless package` run
 * of packaging.test.ts: what each layer zip holds (linux-arm64 binaries with
 * their executable bit, sharp's native build, pdfkit with its fonts, laid out
 * where Lambda looks), which functions carry which layer, and Lambda's
 * limits for a function with its layers.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { kib, type PackageRun, type TemplateFile, table } from '../support/packaging';
import { extractZip, readZipEntry, unzippedSize, zipEntries } from './zip-entries';

/** Lambda: a function's code plus all its layers, unzipped. */
const LAMBDA_UNZIPPED_LIMIT = 250 * 1024 * 1024;
const LAMBDA_MAX_LAYERS = 5;
const LAYER_IDS: Record<string, string> = {
  ffmpeg: 'FfmpegLambdaLayer',
  ffprobe: 'FfprobeLambdaLayer',
  sharp: 'SharpLambdaLayer',
  pdfkit: 'PdfkitLambdaLayer',
};

/** What each media worker runs: ffmpeg/ffprobe as processes, sharp and pdfkit as modules. */
const EXPECTED_LAYERS: Record<string, string[]> = {
  stageWorker: ['ffmpeg', 'ffprobe', 'sharp'],
  unitWorker: ['ffmpeg', 'ffprobe', 'sharp'],
  probeWorker: ['ffprobe'],
  photoWorker: ['sharp'],
  exportWorker: ['sharp', 'pdfkit'],
};

/** Functions whose bundle names a layer module without ever loading it, each with the reason. */
const NAMES_WITHOUT_LOADING: Record<string, string> = {
  // It imports every pipeline for its declarations; sharp is required lazily inside stages, which it never runs.
  watchdog: 'sharp',
};

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
    it('declares the four layers for arm64 and the functions runtime', () => {
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
      for (const [name] of http) expect([name, actual.get(name)?.layers]).toEqual([name, []]);
    });

    it('gives a layer to every function whose code loads sharp or pdfkit', () => {
      const { profiles } = require(path.join(get().run.serviceDir, 'functions', 'manifest.js')) as {
        profiles: Record<string, { packages: string[] }>;
      };
      const actual = layersByFunction();
      const missing: string[] = [];
      for (const [name, { packages }] of Object.entries(profiles)) {
        for (const module of ['sharp', 'pdfkit']) {
          if (!packages.includes(module) || actual.get(name)?.layers.includes(module)) continue;
          if (NAMES_WITHOUT_LOADING[name] !== module) missing.push(`${name}: ${module}`);
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
