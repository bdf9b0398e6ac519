/**
 * Import rules of the code base, checked by tests/unit/project/architecture.test.ts
 * (dependency-cruiser's cruise() over the TypeScript sources and the tooling's
 * JavaScript) and by `npx depcruise lib functions deploy localstack --config .dependency-cruiser.js`.
 *
 * The layers of lib/'s folders are written once, in the "Folder layers" table
 * of docs/architecture.md; this file reads them from there. Each layer's folders
 * may import only folders of their own layer or below, and no folders import
 * each other (folder-level cycles). Modules directly in lib/ (lib/retry.ts) are
 * shared by all layers.
 *
 * The local stack (localstack/) has three folders, one way: the emulators and the provisioning know nothing of
 * each other, and the service runner (runtime) puts them together.
 */
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

/** The layers, bottom first: [{ number, name, folders }], from the table's rows ("| 3 edge | `http`, … | … |"). */
function readLayers() {
  const doc = readFileSync(join(__dirname, 'docs', 'architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Folder layers'));
  const rows = [...section.matchAll(/^\| (\d+) ([a-z ]+) \| ([^|]+) \|/gm)];
  const layers = rows.map(([, number, name, cell]) => ({
    number: Number(number),
    name: name.trim(),
    folders: [...cell.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]),
  }));
  if (layers.length === 0) throw new Error('docs/architecture.md: no "Folder layers" table found');
  return layers.sort((a, b) => a.number - b.number);
}

const LAYERS = readLayers();
const folders = (names) => `^lib/(${names.join('|')})/`;

/** One rule per layer: its folders import nothing of a higher layer. */
const layerRules = LAYERS.slice(0, -1).map((layer, i) => {
  const above = LAYERS.slice(i + 1).flatMap((l) => l.folders);
  return {
    name: `layer-${layer.number}-imports-above`,
    comment: `The ${layer.name} layer (lib/${layer.folders.join(', lib/')}) imports only its own layer and those below it (docs/architecture.md, Folder layers): inject what it needs from above (a callback, a registry) instead.`,
    severity: 'error',
    from: { path: folders(layer.folders) },
    to: { path: folders(above) },
  };
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-folder-cycle',
      comment:
        'No two folders of lib/ import each other, directly or through others: a folder cycle hides the blast radius of a change.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^lib/[^/]+/?$' },
      to: { path: '^lib/[^/]+/?$', circular: true },
    },
    {
      name: 'imports-http-errors',
      comment:
        'HTTP statuses are chosen at the edge: domain, engine and pipeline code throws the errors of lib/errors.ts, which lib/http/errors.ts maps to statuses. Only lib/http and lib/api import lib/http/errors.',
      severity: 'error',
      from: { pathNot: '^lib/(http|api)/' },
      to: { path: '^lib/http/errors\\.ts$' },
    },
    {
      name: 'shared-module-imports-lib',
      comment:
        'Modules directly in lib/ (lib/retry.ts) are shared by every layer, so they import nothing else in lib/.',
      severity: 'error',
      from: { path: '^lib/[^/]+$' },
      to: { path: '^lib/' },
    },
    {
      name: 'no-circular',
      comment:
        'No import cycles in lib/, functions/, deploy/ or localstack/: a cycle makes load order matter and the modules inseparable.',
      severity: 'error',
      from: { path: '^(lib|functions|deploy|localstack)/' },
      to: { circular: true },
    },
    {
      name: 'handler-imports-db',
      comment: 'Handlers in functions/ stay thin: they call a use case in lib/<domain>, never lib/db directly.',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^lib/db/' },
    },
    {
      name: 'lib-imports-handler',
      comment: 'lib/ never imports a handler; handlers are the entry points on top.',
      severity: 'error',
      from: { path: '^lib/' },
      to: { path: '^functions/' },
    },
    {
      name: 'handler-imports-tooling',
      comment:
        'Handlers run in Lambda: they import neither the packaging and deployment tooling (deploy/) nor the local stack (localstack/).',
      severity: 'error',
      from: { path: '^functions/' },
      to: { path: '^(deploy|localstack)/' },
    },
    {
      name: 'deploy-imports-localstack',
      comment:
        'Packaging and deployment (deploy/) stand on their own; the local stack builds on them, never the other way round.',
      severity: 'error',
      from: { path: '^deploy/' },
      to: { path: '^localstack/' },
    },
    {
      name: 'local-emulators-import-above',
      comment:
        'The emulators (localstack/emulators) are the bottom of the local stack: they know neither the provisioning nor the service runner (localstack/runtime), which starts them.',
      severity: 'error',
      from: { path: '^localstack/emulators/' },
      to: { path: '^localstack/(provision|runtime)/' },
    },
    {
      name: 'local-provisioning-imports-stack',
      comment:
        'Provisioning (localstack/provision) works against any endpoints (the embedded emulators, LocalStack, Floci), so it imports neither the emulators nor the service runner; the runner (localstack/runtime) puts them together.',
      severity: 'error',
      from: { path: '^localstack/provision/' },
      to: { path: '^localstack/(emulators|runtime)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports count: a type import from a lower layer into the domain is a layering error too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
// For the architecture test (every lib/ folder is placed once); not enumerable, as the config schema allows no extra keys.
Object.defineProperty(module.exports, 'layers', { value: LAYERS, enumerable: false });
