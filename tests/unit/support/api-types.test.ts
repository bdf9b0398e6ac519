/** Covers: tests/support/api-types-script.js (`npm run api:types`) and the committed tests/support/api-types.ts. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..', '..');

describe('tests/support/api-types.ts', () => {
  it('is what `npm run api:types` generates from the route contracts now', async () => {
    // Run by Node itself: jest cannot load openapi-typescript's ES module dependencies.
    const run = promisify(execFile)(process.execPath, ['tests/support/api-types-script.js', '--check'], { cwd: ROOT });
    await expect(run).resolves.toBeDefined();
  }, 120_000);
});
