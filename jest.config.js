/**
 * Three projects in one run:
 *  - unit: pure rules and handlers with mocked SDK clients; no emulators.
 *  - service: integration and end-to-end suites. The embedded AWS stack and
 *    the local service start ONCE for the run (tests/support/global-setup.ts)
 *    and are shared by every file; each file isolates itself with its own
 *    teams and ids.
 *  - packaging: `serverless package` offline, stack and bundle budgets, media
 *    layers (their zips are built once, before any suite starts).
 */
// The SDK warns that Node 20 support ends in 2027; Lambda runs Node 22, so keep test output clean.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const swc = [
  '@swc/jest',
  { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
];

const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j)sx?$': swc, '^.+\\.mjs$': swc },
  // @middy/*, jose, p-retry (with is-network-error) and pdfjs-dist are ESM only: let swc turn them into CommonJS
  // for jest.
  transformIgnorePatterns: ['/node_modules/(?!(@middy|jose|p-retry|is-network-error|pdfjs-dist)/)'],
  // Jest's default soft-deletes what a test file left on globalThis before the next file in the same worker runs.
  // Libraries keep process-wide instances there (the error-tracking SDK's carrier, whose soft-deleted 'version'
  // jest warned about), and in runs with that warning an error report sent from a test's own process sometimes
  // never reached the fake. Those instances are meant to live for the process.
  testEnvironmentOptions: { globalsCleanup: 'off' },
  // Jest's runtime with V8's code cache kept across a worker's test files (see the file).
  runtime: '<rootDir>/tests/support/code-cache-runtime.js',
};

const PROJECTS = ['unit', 'service', 'packaging', 'crash'];

// `--selectProjects` takes every argument after it, so `jest --selectProjects service tests/x.test.ts` would
// silently run the whole service project with 'tests/x.test.ts' taken as a project name. Refuse that.
const selectAt = process.argv.indexOf('--selectProjects');
if (selectAt >= 0) {
  const named = [];
  for (const arg of process.argv.slice(selectAt + 1)) {
    if (arg.startsWith('-')) break;
    named.push(arg);
  }
  const unknown = named.filter((name) => !PROJECTS.includes(name));
  if (unknown.length > 0)
    throw new Error(
      `--selectProjects got ${unknown.join(', ')}, which is no project (${PROJECTS.join(', ')}): ` +
        'put test paths before --selectProjects, e.g. jest tests/e2e/x.test.ts --selectProjects service',
    );
}

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60000,
  maxWorkers: 3,
  // The 20 slowest test files and their times, after the summary (docs/testing.md, "Where the time goes", lists them).
  reporters: ['default', '<rootDir>/tests/support/slowest-suites-reporter.js'],
  // Longest files first by their recorded times, so a fresh machine (no jest cache) packs its three workers well.
  testSequencer: '<rootDir>/tests/support/duration-sequencer.js',
  // Coverage of the pure rule modules only (`npm test` runs jest with --coverage): they hold the spec's
  // arithmetic and decisions and are meant to be tested directly. The threshold applies to each rule module
  // on its own (a glob key, expanded from the working directory, so run jest from the root as npm does;
  // '*rules.ts' takes rules.ts and x-rules.ts), so one well-tested module cannot hide a weak one, and a module
  // nothing tests fails at 0 %.
  // Istanbul (the 'babel' provider) instruments only the files collectCoverageFrom names, once, in jest's transform
  // cache; v8 coverage counted every script each test file loaded (the SDKs included) and doubled the unit tests'
  // time (62 s without coverage, 137 s with v8's, 57 s with istanbul's, on the 2-core machine).
  coverageProvider: 'babel',
  collectCoverageFrom: ['lib/**/rules.ts', 'lib/**/*-rules.ts'],
  coverageReporters: ['text'],
  coverageThreshold: { './lib/**/*rules.ts': { lines: 99, branches: 90, functions: 95 } },
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/tests/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'service',
      testMatch: ['<rootDir>/tests/integration/**/*.test.ts', '<rootDir>/tests/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/tests/support/global-setup.ts',
      globalTeardown: '<rootDir>/tests/support/global-teardown.ts',
      // Fails a test file whose answers do not match the API document (tests/support/openapi-conformance.ts).
      setupFilesAfterEnv: ['<rootDir>/tests/support/conformance-setup.ts'],
    },
    {
      ...common,
      displayName: 'packaging',
      testMatch: ['<rootDir>/tests/packaging/**/*.test.ts'],
      // Builds the media layer zips once, before any suite of the run starts (cached in .layers/).
      globalSetup: '<rootDir>/tests/packaging/global-setup.ts',
    },
    // Kills a whole local stack of its own and starts it again (tests/crash/stack-restart.test.ts): it cannot share
    // the service project's stack, and two stacks at once overload a 2-core machine, so `npm test` runs it in a jest
    // run of its own after the others (docs/testing.md, "The crash test").
    { ...common, displayName: 'crash', testMatch: ['<rootDir>/tests/crash/**/*.test.ts'] },
  ],
};
