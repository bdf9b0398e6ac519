/**
 * `serverless package` refuses settings that must never reach a deployed
 * stage: local mode and the local sign-in bypass. The refusal comes before
 * any bundling, so these runs are short.
 */
import { removeSnapshot, runServerlessPackage, snapshotService } from '../support/packaging';

let serviceDir: string;

beforeAll(() => {
  serviceDir = snapshotService();
});
afterAll(() => removeSnapshot(serviceDir));

describe('serverless package refuses the local-only settings', () => {
  it(
    'refuses APP_ENV=local, naming it',
    async () => {
      const run = await runServerlessPackage(serviceDir, 'ci', 3 * 60_000, { APP_ENV: 'local' });
      expect(run.exitCode).not.toBe(0);
      expect(run.output).toContain('Refusing to package with APP_ENV=local');
    },
    4 * 60_000,
  );

  it(
    'refuses a set LOCAL_AUTH_USER_EMAIL even outside local mode',
    async () => {
      const run = await runServerlessPackage(serviceDir, 'ci', 3 * 60_000, {
        APP_ENV: 'stage',
        LOCAL_AUTH_USER_EMAIL: 'developer@localhost',
      });
      expect(run.exitCode).not.toBe(0);
      expect(run.output).toContain('Refusing to package with LOCAL_AUTH_USER_EMAIL set');
    },
    4 * 60_000,
  );
});
