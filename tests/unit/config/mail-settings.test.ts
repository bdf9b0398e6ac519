/** Covers: lib/config/schema.ts (the mail settings: defaults, MAIL_FROM on MAIL_DOMAIN). */
import { ConfigError, loadSettings } from '../../../lib/config';

/** Settings from these values alone (no environment, no files). */
const load = (values: Record<string, string>) =>
  loadSettings({ env: {}, overrides: values, dotenvPath: '/nonexistent/.env', machineFilePath: '/nonexistent/m.env' });

function problems(values: Record<string, string>): { variable: string; message: string }[] {
  try {
    load(values);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('mail settings', () => {
  it('default to sending off, the US API host and 20 MB attachments', () => {
    const s = load({});
    expect(s.MAIL_API_KEY).toBe('');
    expect(s.MAIL_BASE_URL).toBe('https://api.mailgun.net');
    expect(s.MAX_EMAIL_ATTACHMENT_MB).toBe(20);
    expect(s.MAIL_WEBHOOK_SIGNING_KEY).toBe('');
    expect(s.MAIL_TIMEOUT_SECONDS).toBe(60);
    expect(s.MAIL_RETRY_BACKOFF_MS).toBe(1000);
  });

  it.each([
    'inventory@mg.example.com',
    'Inventory@MG.Example.com',
    'Contents Inventory <inventory@mg.example.com>',
    '"Inventory, Claims" <inventory@mg.example.com> ',
  ])('accept a From on the mail domain: %s', (from) => {
    expect(problems({ MAIL_DOMAIN: 'mg.example.com', MAIL_FROM: from })).toEqual([]);
  });

  it('refuse a From on another domain, naming both', () => {
    const [problem, ...rest] = problems({
      MAIL_DOMAIN: 'mg.example.com',
      MAIL_FROM: 'Inventory <inventory@example.com>',
    });
    expect(rest).toEqual([]);
    expect(problem.variable).toBe('MAIL_FROM');
    expect(problem.message).toContain('must be an address on MAIL_DOMAIN (mg.example.com), not on example.com');
    expect(problem.message).toContain('inventory@mg.example.com');
  });

  it.each(['inventory', '@mg.example.com', 'inventory@', 'in ventory@mg.example.com'])(
    'refuse a From that is not an address: %s',
    (from) => {
      const [problem] = problems({ MAIL_DOMAIN: 'mg.example.com', MAIL_FROM: from });
      expect(problem.variable).toBe('MAIL_FROM');
      expect(problem.message).toMatch(/^must be an email address on MAIL_DOMAIN/);
    },
  );

  it('check nothing until both are set', () => {
    expect(problems({ MAIL_FROM: 'someone@anywhere.example' })).toEqual([]);
    expect(problems({ MAIL_DOMAIN: 'mg.example.com' })).toEqual([]);
  });

  it('refuse a non-positive timeout and a negative backoff', () => {
    expect(problems({ MAIL_TIMEOUT_SECONDS: '0', MAIL_RETRY_BACKOFF_MS: '-1' }).map((p) => p.variable)).toEqual([
      'MAIL_TIMEOUT_SECONDS',
      'MAIL_RETRY_BACKOFF_MS',
    ]);
  });
});
