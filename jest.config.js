/**
 * Three projects in one run:
 *  - unit: pure rules and handlers with mocked SDK clients; no emulators.
 *  - service: integration and end-to-end suites. The embedded AWS stack and
 *    the local service start ONCE for the run (tests/support/global-setup.ts)
 *    and are shared by every file; each file isolates itself with its own
 *    teams and ids.
 *  - packaging: `serverless package` offline, stack and bundle budgets.
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
  // @middy/*, jose and p-retry (with is-network-error) are ESM only: let swc turn them into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!(@middy|jose|p-retry|is-network-error)/)'],
};

/** @type {import('jest').Config} */
module.exports = {
  testTimeout: 60000,
  maxWorkers: 2,
  // Coverage of the pure rule modules only (`npm test` runs jest with --coverage): they hold the spec's
  // arithmetic and decisions and are meant to be tested directly. The threshold is on all of them together
  // (a rule module nothing tests counts as 0 %); the unit tests alone reach about 95 % of lines and branches
  // and 84 % of functions. v8 coverage needs no instrumentation pass, which keeps the swc transform fast.
  coverageProvider: 'v8',
  collectCoverageFrom: ['lib/**/rules.ts', 'lib/**/*-rules.ts'],
  coverageReporters: ['text'],
  coverageThreshold: { global: { lines: 90, branches: 90, functions: 80 } },
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/tests/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'service',
      testMatch: ['<rootDir>/tests/integration/**/*.test.ts', '<rootDir>/tests/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/tests/support/global-setup.ts',
      globalTeardown: '<rootDir>/tests/support/global-teardown.ts',
    },
    { ...common, displayName: 'packaging', testMatch: ['<rootDir>/tests/packaging/**/*.test.ts'] },
  ],
};
