/**
 * The PDF sandbox's child (functions/sandbox/pdf-reader.ts) built for tests
 * and benchmarks that run from the TypeScript sources: one esbuild bundle,
 * with the packages serverless.yml keeps out of bundles loaded from
 * node_modules, as the local stack's build does. Built once per process.
 */
import path from 'node:path';
import { buildSync } from 'esbuild';
import type { SandboxLimits } from '../../lib/pdf/sandbox';

const root = path.join(__dirname, '..', '..');
let built: string | undefined;

function pdfSandboxEntry(): string {
  if (built) return built;
  const { loadServerlessConfig } = require('../../deploy/serverless-config') as {
    loadServerlessConfig(): { custom?: { esbuild?: { external?: string[] } } };
  };
  const outfile = path.join(root, '.local', 'build', 'pdf-sandbox', `pdf-reader-${process.pid}.cjs`);
  buildSync({
    entryPoints: [path.join(root, 'functions', 'sandbox', 'pdf-reader.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: `node${process.versions.node.split('.')[0]}`,
    external: loadServerlessConfig().custom?.esbuild?.external ?? [],
    logLevel: 'silent',
  });
  built = outfile;
  return outfile;
}

/** The sandbox's default ceilings with the test build as its entry; `overrides` narrow them for a case. */
export const testSandboxLimits = (overrides: Partial<SandboxLimits> = {}): SandboxLimits => ({
  memoryMb: 1024,
  seconds: 120,
  entry: pdfSandboxEntry(),
  ...overrides,
});
