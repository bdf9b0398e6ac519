/** Covers: lib/config/load.ts (layering, validation), lib/config/index.ts (baseUrl). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseUrl, ConfigError, loadSettings } from '../../../lib/config';

// Setting files of this suite; removed afterwards so no run leaves files in the temp directory.
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function files(machine: string, dotenv: string) {
  const dir = mkdtempSync(join(tmpdir(), 'config-'));
  made.push(dir);
  writeFileSync(join(dir, 'machine.env'), machine);
  writeFileSync(join(dir, '.env'), dotenv);
  return { machineFilePath: join(dir, 'machine.env'), dotenvPath: join(dir, '.env') };
}

describe('settings layering', () => {
  it('uses the spec defaults when nothing is set', () => {
    const s = loadSettings({ env: {}, ...files('', '') });
    expect(s.BILLING_BLOCK_SECONDS).toBe(20);
    expect(s.MAX_UPLOAD_SIZE_MB).toBe(2000);
    expect(s.MAX_CHUNK_BYTES).toBe(32 * 1024 * 1024);
    expect(s.OPENROUTER_PHOTO_CONCURRENCY).toBe(12);
    expect(s.PHOTO_BUDGET_TRUNCATION_RATIO).toBe(0.95);
    expect(s.CLAIMS_PLATFORM_COOKIE_NAME).toBe('bt_shared_data');
    expect(s.ADMIN_EXTERNAL_USER_IDS).toEqual(['7', '10']);
    expect(s.CORS_ORIGINS).toEqual(['http://localhost:3000']);
    expect(s.ENABLE_BILLING).toBe(false);
    expect(s.DEFAULT_TEAM_CREDIT_RATE).toBe(0.15);
    expect(s.ESTIMATION_PLATFORM_SSO_TTL_MINUTES).toBe(3);
  });

  it('ranks constructor arguments > environment > .env > machine file > defaults', () => {
    const paths = files(
      'MAX_PHOTOS_PER_ITEM=2\nSTUCK_JOB_MINUTES=40\nMAIL_FROM=machine@x\nCHAT_WEBHOOK_URL=http://machine',
      'MAX_PHOTOS_PER_ITEM=3\nSTUCK_JOB_MINUTES=41\nMAIL_FROM=dotenv@x',
    );
    const s = loadSettings({
      ...paths,
      env: { MAX_PHOTOS_PER_ITEM: '4', STUCK_JOB_MINUTES: '42' },
      overrides: { MAX_PHOTOS_PER_ITEM: 6 },
    });
    expect(s.MAX_PHOTOS_PER_ITEM).toBe(6); // argument beats env
    expect(s.STUCK_JOB_MINUTES).toBe(42); // env beats .env
    expect(s.MAIL_FROM).toBe('dotenv@x'); // .env beats machine file
    expect(s.CHAT_WEBHOOK_URL).toBe('http://machine'); // machine file beats default
  });

  it('does not let an empty value in a file layer shadow a lower layer', () => {
    const paths = files(
      'SUPPORT_EMAIL=help@machine\nMAX_EMAIL_ATTACHMENT_MB=12',
      'SUPPORT_EMAIL=\nMAX_EMAIL_ATTACHMENT_MB=   ',
    );
    const s = loadSettings({ ...paths, env: {} });
    expect(s.SUPPORT_EMAIL).toBe('help@machine');
    expect(s.MAX_EMAIL_ATTACHMENT_MB).toBe(12);
  });

  it('lets a real environment variable set a value to empty', () => {
    const s = loadSettings({ ...files('CHAT_WEBHOOK_URL=http://machine', ''), env: { CHAT_WEBHOOK_URL: '' } });
    expect(s.CHAT_WEBHOOK_URL).toBe('');
  });

  it('stops with a message naming the variable for a bad value', () => {
    const paths = files('', '');
    expect(() => loadSettings({ ...paths, env: { MAX_UPLOAD_SIZE_MB: 'lots' } })).toThrow(ConfigError);
    expect(() => loadSettings({ ...paths, env: { MAX_UPLOAD_SIZE_MB: 'lots' } })).toThrow(/MAX_UPLOAD_SIZE_MB/);
    expect(() => loadSettings({ ...paths, env: { ENABLE_BILLING: 'maybe' } })).toThrow(/ENABLE_BILLING/);
    expect(() => loadSettings({ ...paths, env: { APP_ENV: 'qa' } })).toThrow(/APP_ENV/);
    expect(() => loadSettings({ ...paths, env: { FRAME_JPEG_QUALITY: '40' } })).toThrow(/FRAME_JPEG_QUALITY/);
  });

  it("lets the AI calls in flight across the deployment go up to the SQS event source's 1,000, not past it", () => {
    const paths = files('', '');
    expect(loadSettings({ ...paths, env: { OPENROUTER_GLOBAL_CONCURRENCY: '64' } }).OPENROUTER_GLOBAL_CONCURRENCY).toBe(
      64,
    );
    expect(
      loadSettings({ ...paths, env: { OPENROUTER_GLOBAL_CONCURRENCY: '1000' } }).OPENROUTER_GLOBAL_CONCURRENCY,
    ).toBe(1000);
    expect(() => loadSettings({ ...paths, env: { OPENROUTER_GLOBAL_CONCURRENCY: '1001' } })).toThrow(
      /OPENROUTER_GLOBAL_CONCURRENCY/,
    );
  });

  it('parses booleans and comma lists', () => {
    const s = loadSettings({
      ...files('', ''),
      env: {
        ENABLE_BILLING: 'true',
        ADMIN_EXTERNAL_USER_IDS: ' 1, 2 ,,3',
        CORS_ORIGINS: 'https://a.example,https://b.example',
      },
    });
    expect(s.ENABLE_BILLING).toBe(true);
    expect(s.ADMIN_EXTERNAL_USER_IDS).toEqual(['1', '2', '3']);
    expect(s.CORS_ORIGINS).toEqual(['https://a.example', 'https://b.example']);
  });

  it('accepts a bare domain or a full base URL for external systems', () => {
    expect(baseUrl('billing.example.com')).toBe('https://billing.example.com');
    expect(baseUrl('http://127.0.0.1:4010/')).toBe('http://127.0.0.1:4010');
    expect(baseUrl('')).toBe('');
  });
});

describe('login token secret strength', () => {
  const NO_FILES = { machineFilePath: '/nonexistent/settings.env', dotenvPath: '/nonexistent/.env' };
  const refused = (env: Record<string, string>) => {
    try {
      loadSettings({ ...NO_FILES, env });
    } catch (err) {
      return err;
    }
    return undefined;
  };

  it.each(['production', 'stage'])(
    'refuses a CLAIMS_PLATFORM_JWT_SECRET under 32 bytes with APP_ENV=%s, naming the variable',
    (appEnv) => {
      const err = refused({ APP_ENV: appEnv, CLAIMS_PLATFORM_JWT_SECRET: 'x'.repeat(31) });
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems.map((p) => p.variable)).toEqual(['CLAIMS_PLATFORM_JWT_SECRET']);
      // The message never carries the secret itself.
      expect((err as Error).message).not.toContain('x'.repeat(31));
    },
  );

  it('counts bytes, not characters', () => {
    // 16 two-byte characters: 32 bytes.
    expect(refused({ APP_ENV: 'production', CLAIMS_PLATFORM_JWT_SECRET: 'é'.repeat(16) })).toBeUndefined();
    expect(refused({ APP_ENV: 'production', CLAIMS_PLATFORM_JWT_SECRET: 'é'.repeat(15) })).toBeInstanceOf(ConfigError);
  });

  it('accepts 32 bytes or more, any secret with APP_ENV=local, and an empty secret (every login then fails, as the spec says)', () => {
    expect(refused({ APP_ENV: 'production', CLAIMS_PLATFORM_JWT_SECRET: 'y'.repeat(32) })).toBeUndefined();
    expect(refused({ APP_ENV: 'local', CLAIMS_PLATFORM_JWT_SECRET: 'short' })).toBeUndefined();
    expect(refused({ APP_ENV: 'production', CLAIMS_PLATFORM_JWT_SECRET: '' })).toBeUndefined();
  });
});

describe('layeredValues', () => {
  it('tells a value no layer sets apart from one a file sets to the default', async () => {
    const { layeredValues } = await import('../../../lib/config');
    expect(layeredValues({ env: {}, ...files('', '') }).APP_ENV).toBeUndefined();
    expect(layeredValues({ env: {}, ...files('', 'APP_ENV=production') }).APP_ENV).toBe('production');
    expect(layeredValues({ env: { APP_ENV: 'stage' }, ...files('APP_ENV=local', '') }).APP_ENV).toBe('stage');
  });
});
