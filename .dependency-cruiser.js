/**
 * Import rules of the code base, checked by tests/unit/project/architecture.test.ts
 * (dependency-cruiser's cruise() over the TypeScript sources and the tooling's
 * JavaScript) and by `npx depcruise lib functions deploy localstack --config .dependency-cruiser.js`.
 *
 * Layers, bottom to top:
 *  - infrastructure (LOWER_LAYERS), itself in three tiers: settings and
 *    logging and fault points (FOUNDATION); table, bucket and queues (STORAGE); the HTTP edge,
 *    workers' plumbing, media processing and clients of external systems (EDGE). They know
 *    nothing of the domain, so they can be reused and tested on their own;
 *  - domain (DOMAINS): one folder per capability of the spec;
 *  - composition (COMPOSITION): wires the domains together (the API endpoint
 *    with its sign-in, the route table).
 * Modules directly in lib/ (lib/retry.ts) are shared by all layers. Every
 * folder under lib/ is in exactly one of the three lists; the test fails for a
 * folder that is in none, so a new folder has to be placed.
 */
const FOUNDATION = ['config', 'observability', 'faults'];
const STORAGE = ['blob', 'db', 'queue'];
const EDGE = ['background', 'http', 'integrations', 'media', 'pdf'];
const LOWER_LAYERS = [...FOUNDATION, ...STORAGE, ...EDGE];
const DOMAINS = [
  'activity',
  'admin',
  'auth',
  'billing',
  'capture',
  'claims',
  'dashboard',
  'exports',
  'features',
  'health',
  'inventory',
  'jobs',
  'orchestrator',
  'photos',
  'imports',
  'insured',
  'pipelines',
  'purge',
  'rooms',
  'sends',
  'settings',
  'stats',
  'teams',
  'training',
  'tenancy',
  'uploads',
  'users',
];
const COMPOSITION = ['api'];

const folders = (names) => `^lib/(${names.join('|')})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'lower-layer-imports-domain',
      comment:
        'lib/db, lib/http, lib/queue, lib/blob, lib/integrations, lib/background, lib/media, lib/pdf, lib/observability and lib/config import no domain module: inject what they need (a callback, a recorder) from the domain instead.',
      severity: 'error',
      from: { path: folders(LOWER_LAYERS) },
      to: { path: folders([...DOMAINS, ...COMPOSITION]) },
    },
    {
      name: 'domain-imports-composition',
      comment:
        'The composition layer (lib/api: the endpoint wiring and the route table) sits above every domain; nothing below it imports it.',
      severity: 'error',
      from: { path: folders([...LOWER_LAYERS, ...DOMAINS]) },
      to: { path: folders(COMPOSITION) },
    },
    {
      name: 'foundation-imports-above',
      comment:
        'lib/config and lib/observability are the base everything else stands on; they import nothing else in lib/ but the shared modules directly in lib/ (lib/retry.ts, for the outbound HTTP core).',
      severity: 'error',
      from: { path: folders(FOUNDATION) },
      to: { path: '^lib/', pathNot: `${folders(FOUNDATION)}|^lib/[^/]+$` },
    },
    {
      name: 'storage-imports-edge',
      comment:
        'lib/db, lib/blob and lib/queue sit below the HTTP edge and the external clients: they throw their own errors and know no HTTP status.',
      severity: 'error',
      from: { path: folders(STORAGE) },
      to: { path: folders(EDGE) },
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
// For the architecture test (every lib/ folder is placed); not enumerable, as the config schema allows no extra keys.
Object.defineProperty(module.exports, 'layers', { value: { LOWER_LAYERS, DOMAINS, COMPOSITION }, enumerable: false });
