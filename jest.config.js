/**
 * One jest run covers unit, integration and end-to-end suites. The embedded
 * AWS stack and the local service are started once per run by the global
 * setup (tests/support/global-setup.ts) and shared by every test file; each
 * test file isolates itself with its own teams and ids.
 */
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.(t|j)sx?$': swc, '^.+\\.mjs$': swc },
  // @middy/* is ESM only: let swc turn it into CommonJS for jest.
  transformIgnorePatterns: ['/node_modules/(?!(@middy)/)'],
  testTimeout: 60000,
  maxWorkers: 2,
};
