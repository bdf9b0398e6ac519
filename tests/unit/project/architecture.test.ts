/**
 * The import rules of .dependency-cruiser.js hold: the folder layers of
 * docs/architecture.md (no import climbs a layer, no two folders of lib/ import
 * each other), HTTP errors only at the edge, no module cycles, thin handlers
 * that import no tooling, deploy/ apart from localstack/, and the
 * local stack's folders one way (emulators and provisioning below the service runner).
 * dependency-cruiser's cruise() runs over the TypeScript sources with tsconfig.json and the tooling's JavaScript; it is ESM-only, so it runs in a
 * child Node process and hands back the violations as JSON.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const root = join(__dirname, '..', '..', '..');
const configFile = join(root, '.dependency-cruiser.js');
const config = require(configFile) as {
  forbidden: { name: string; severity: string }[];
  layers: { number: number; name: string; folders: string[] }[];
};

interface Violation {
  rule: string;
  from: string;
  to: string;
  cycle: string[];
}

const CRUISE = `
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
const { configFile, baseDir, tsConfig, paths } = JSON.parse(process.env.CRUISE_ARGS);
const options = { ...(await extractDepcruiseOptions(configFile)), baseDir };
if (tsConfig) options.tsConfig = { fileName: tsConfig };
else delete options.tsConfig;
const { output } = await cruise(paths, options, undefined, tsConfig ? { tsConfig: extractTSConfig(tsConfig) } : undefined);
const violations = output.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to, cycle: (v.cycle ?? []).map((c) => c.name) }));
process.stdout.write(JSON.stringify({ modules: output.summary.totalCruised, violations }));
`;

/** Cruises `paths` under `baseDir` with the project's rules. */
function cruiseViolations(
  baseDir: string,
  paths: string[],
  tsConfig: string | null,
): { modules: number; violations: Violation[] } {
  // Run from the project root, where the evaluated module resolves dependency-cruiser.
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', CRUISE], {
    cwd: root,
    env: { ...process.env, CRUISE_ARGS: JSON.stringify({ configFile, baseDir, tsConfig, paths }) },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out);
}

const CRUISED = ['lib', 'functions', 'deploy', 'localstack'];

const describeViolation = (v: Violation) =>
  `${v.rule}: ${v.from} → ${v.to}${v.cycle.length ? ` (cycle: ${[v.from, ...v.cycle].join(' → ')})` : ''}`;

describe('architecture (.dependency-cruiser.js)', () => {
  it('places every folder of lib/ in exactly one layer of docs/architecture.md', () => {
    expect(config.layers.map((l) => l.number)).toEqual(config.layers.map((_, i) => i + 1));
    const placed = config.layers.flatMap((l) => l.folders);
    const folders = readdirSync(join(root, 'lib')).filter((name) => statSync(join(root, 'lib', name)).isDirectory());
    expect(folders.filter((f) => !placed.includes(f))).toEqual([]);
    expect(placed.filter((f, i) => placed.indexOf(f) !== i)).toEqual([]);
  });

  it('makes every rule an error (a warning would let a violation through)', () => {
    expect(config.forbidden.length).toBeGreaterThan(0);
    expect(config.forbidden.filter((r) => r.severity !== 'error').map((r) => r.name)).toEqual([]);
  });

  it('finds no violation in lib/, functions/, deploy/ and localstack/', () => {
    const { modules, violations } = cruiseViolations(root, CRUISED, join(root, 'tsconfig.json'));
    expect(modules).toBeGreaterThan(100);
    expect(violations.map(describeViolation)).toEqual([]);
  });

  describe('catches each kind of violation', () => {
    let dir: string;
    const file = (path: string, text: string) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    };

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'architecture-'));
      file('lib/jobs/job.ts', 'export const job = 1;\n');
      file('lib/db/client.ts', "import { job } from '../jobs/job';\nexport const db = job;\n");
      file('lib/http/table.ts', "import { job } from '../jobs/job';\nexport const routes = [job];\n");
      file('lib/claims/a.ts', "import type { B } from './b';\nexport type A = { b?: B };\n");
      file('lib/claims/b.ts', "import type { A } from './a';\nexport type B = { a?: A };\n");
      file('lib/db/pagination.ts', "import { notFound } from '../http/errors';\nexport const page = notFound;\n");
      file('lib/http/errors.ts', 'export const notFound = 404;\n');
      file('lib/rooms/room.ts', "import { notFound } from '../http/errors';\nexport const room = notFound;\n");
      file('lib/api/route-table.ts', "import { job } from '../jobs/job';\nexport const table = [job];\n");
      file('lib/users/user.ts', "import { table } from '../api/route-table';\nexport const user = table;\n");
      // Two folders of one layer importing each other, with no module cycle.
      file('lib/claims/claim.ts', "import { room } from '../rooms/room';\nexport const claim = room;\n");
      file(
        'lib/rooms/plan.ts',
        "import { job } from '../jobs/job';\nimport { a } from '../claims/c';\nexport const plan = [job, a];\n",
      );
      file('lib/claims/c.ts', 'export const a = 1;\n');
      file('functions/api/get.ts', "import { db } from '../../lib/db/client';\nexport const handler = () => db;\n");
      file(
        'functions/api/list.ts',
        "import { LAYERS } from '../../deploy/layers';\nexport const handler = () => LAYERS;\n",
      );
      // A lazy require still closes a cycle.
      file('deploy/layers.js', "const later = () => require('./manifest');\nmodule.exports = { LAYERS: {}, later };\n");
      file('deploy/manifest.js', "const { LAYERS } = require('./layers');\nmodule.exports = { LAYERS };\n");
      file(
        'deploy/iam.js',
        "const { provision } = require('../localstack/provision/provision');\nmodule.exports = { provision };\n",
      );
      file(
        'localstack/provision/provision.js',
        "const { startEmulators } = require('../emulators/emulators');\nmodule.exports = { provision: () => startEmulators };\n",
      );
      file(
        'localstack/emulators/emulators.js',
        "const later = () => require('../runtime/service');\nmodule.exports = { startEmulators: () => {}, later };\n",
      );
      file('localstack/runtime/service.js', 'module.exports = { startLocalService: () => {} };\n');
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('reports them all, type-only imports included', () => {
      const { violations } = cruiseViolations(dir, CRUISED, null);
      const found = violations.map((v) => `${v.rule}: ${v.from} → ${v.to}`).sort();
      expect(found).toEqual(
        [
          'layer-4-imports-above: lib/users/user.ts → lib/api/route-table.ts',
          'handler-imports-db: functions/api/get.ts → lib/db/client.ts',
          'handler-imports-tooling: functions/api/list.ts → deploy/layers.js',
          'deploy-imports-localstack: deploy/iam.js → localstack/provision/provision.js',
          'local-emulators-import-above: localstack/emulators/emulators.js → localstack/runtime/service.js',
          'local-provisioning-imports-stack: localstack/provision/provision.js → localstack/emulators/emulators.js',
          'no-circular: deploy/layers.js → deploy/manifest.js',
          'imports-http-errors: lib/db/pagination.ts → lib/http/errors.ts',
          'imports-http-errors: lib/rooms/room.ts → lib/http/errors.ts',
          'layer-2-imports-above: lib/db/client.ts → lib/jobs/job.ts',
          'layer-3-imports-above: lib/http/table.ts → lib/jobs/job.ts',
          'layer-2-imports-above: lib/db/pagination.ts → lib/http/errors.ts',
          'no-folder-cycle: lib/claims → lib/rooms',
          'no-folder-cycle: lib/rooms → lib/claims',
          'no-circular: lib/claims/a.ts → lib/claims/b.ts',
        ].sort(),
      );
    });
  });
});
