/**
 * The local service (what `npm start`, the service tests and the benchmarks
 * run) leaves nothing behind in the system temp directory: the serverless
 * offline child and the functions it runs get their own TMPDIR under
 * .local/tmp, removed on stop; a throwaway data directory is removed too.
 *
 * Boots the embedded stack and serverless offline once (about ten seconds).
 */
import fs from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

const { startLocalService } = require('../../localstack/runtime/service.js');
const { privateTempDir, sweepStaleTempDirs } = require('../../localstack/runtime/offline.js');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const noFiles = { MACHINE_SETTINGS_FILE: '/nonexistent/settings.env', DOTENV_FILE: '/nonexistent/.env' };

describe('local service temp files', () => {
  it(
    'writes no function copies to the system temp directory and removes its own on stop',
    async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'contents-inventory-temp-test-'));
      const service = await startLocalService({
        stage: 'tmpcheck',
        dataDir,
        removeDataDirOnStop: true,
        ports: { http: await freePort(), lambda: await freePort(), stream: await freePort() },
        env: { ...noFiles, APP_ENV: 'local', LOG_LEVEL: 'ERROR' },
      }).catch((err: Error) => {
        fs.rmSync(dataDir, { recursive: true, force: true });
        throw err;
      });
      // The API's serverless offline process and the workers'.
      const { offlinePids, offlineTempDirs } = service as { offlinePids: number[]; offlineTempDirs: string[] };
      expect(offlinePids).toHaveLength(2);
      await service.stop();

      // Whatever a child or its functions leave in a temp directory is named after its pid.
      for (const pid of offlinePids) {
        const leftovers = fs.readdirSync(os.tmpdir()).filter((entry) => entry.includes(`-${pid}-`));
        expect(leftovers).toEqual([]);
      }
      for (const dir of offlineTempDirs) {
        expect(path.relative(path.join(__dirname, '..', '..', '.local'), dir).startsWith('..')).toBe(false);
        expect(fs.existsSync(dir)).toBe(false);
      }
      expect(fs.existsSync(dataDir)).toBe(false);
    },
    6 * 60_000,
  );

  it('removes the temp directories of runs that died without stopping, and keeps those of live ones', () => {
    const tempRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'offline-sweep-test-'));
    try {
      // This process is alive: its directory stays.
      const live = privateTempDir(tempRoot);
      const dead = path.join(tempRoot, 'offline-999999999-abc123');
      fs.mkdirSync(path.join(dead, 'getRoom-999999999-1-ff'), { recursive: true });
      expect(sweepStaleTempDirs(tempRoot)).toEqual(['offline-999999999-abc123']);
      expect(fs.existsSync(dead)).toBe(false);
      expect(fs.existsSync(live)).toBe(true);
    } finally {
      fs.rmSync(tempRoot, { recursive: true, force: true });
    }
  });
});
