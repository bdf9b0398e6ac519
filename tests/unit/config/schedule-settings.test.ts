/**
 * Covers: lib/config/schema.ts (the schedule rates, sweep and lease settings), lib/sends/claims-platform-rules.ts
 * (the send leases), deploy/manifest.js (a schedule's rate taken from its setting).
 *
 * Every sweep rate and lease is a setting whose default is what was hard-coded
 * before. A rate must be an EventBridge rate expression: a bad one stops the
 * settings from loading (and so packaging and `npm start`) with its name.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ConfigError, loadSettings } from '../../../lib/config';
import { requestLeaseMs } from '../../../lib/sends/claims-platform-rules';

const root = join(__dirname, '..', '..', '..');

const load = (env: Record<string, string> = {}) =>
  loadSettings({ env, dotenvPath: '/nonexistent', machineFilePath: '/nonexistent' });

/** The problems a value of `name` is refused with ([] when it loads). */
function refusal(name: string, value: string): string[] {
  try {
    load({ [name]: value });
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.problems.map((p) => `${p.variable}: ${p.message}`);
  }
}

describe('defaults', () => {
  it('are the rates and leases that were hard-coded', () => {
    const s = load();
    expect(s.WATCHDOG_RATE).toBe('rate(1 minute)');
    expect(s.BILLING_SWEEP_RATE).toBe('rate(5 minutes)');
    expect(s.ESTIMATION_SEND_LEASE_SECONDS).toBe(60);
    expect(requestLeaseMs(s)).toBe(60_000);
  });

  it('give way to a set value', () => {
    const s = load({ CLAIMS_PLATFORM_REQUEST_LEASE_SECONDS: '45', ESTIMATION_SEND_LEASE_SECONDS: '90' });
    expect([requestLeaseMs(s), s.ESTIMATION_SEND_LEASE_SECONDS]).toEqual([45_000, 90]);
  });
});

describe('a schedule rate', () => {
  it.each([
    'rate(1 minute)',
    'rate(2 minutes)',
    'rate(15 minutes)',
    'rate(1 hour)',
    'rate(6 hours)',
    'rate(1 day)',
    'rate(7 days)',
    ' rate(5 minutes) ',
  ])('accepts %p', (value) => {
    expect(refusal('WATCHDOG_RATE', value)).toEqual([]);
    expect(load({ BILLING_SWEEP_RATE: value }).BILLING_SWEEP_RATE).toBe(value.trim());
  });

  it.each([
    ['rate(1 minutes)', /say minute for 1/],
    ['rate(5 minute)', /say minutes for 5/],
    ['rate(0 minutes)', /at least 1/],
    ['rate(1 second)', /EventBridge rate expression/],
    ['rate(1.5 hours)', /EventBridge rate expression/],
    ['rate(-1 minutes)', /EventBridge rate expression/],
    ['rate(5  minutes)', /EventBridge rate expression/],
    ['5 minutes', /EventBridge rate expression/],
    ['cron(0/5 * * * ? *)', /EventBridge rate expression/],
    ['', /EventBridge rate expression/],
  ])('refuses %p, naming the setting', (value, why) => {
    for (const name of ['WATCHDOG_RATE', 'BILLING_SWEEP_RATE']) {
      const problems = refusal(name, value);
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^${name}: `));
      expect(problems[0]).toMatch(why);
    }
  });
});

describe('a lease or attempt limit', () => {
  it.each([
    ['CLAIMS_PLATFORM_REQUEST_LEASE_SECONDS', '29', /more than 29/],
    ['ESTIMATION_SEND_LEASE_SECONDS', '10', /more than 29/],
  ])('refuses %s=%s', (name, value, why) => {
    const problems = refusal(name, value);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(why);
  });

  it('accepts the smallest safe values', () => {
    expect(
      refusal('CLAIMS_PLATFORM_REQUEST_LEASE_SECONDS', '30').concat(refusal('ESTIMATION_SEND_LEASE_SECONDS', '30')),
    ).toEqual([]);
  });
});

describe('the function list (deploy/manifest.js, which `npm start` schedules from too)', () => {
  /** The schedules' rates as packaging builds them, in a process of its own with `env` set (as the real env layer). */
  const schedulesWith = (env: Record<string, string>) => {
    const script = `const { functions } = require('./deploy/manifest.js');
      const rates = Object.fromEntries(['watchdog', 'billingSweep', 'uploadSweep'].map((n) => [n, functions[n].events[0].schedule.rate]));
      process.stdout.write(JSON.stringify(rates));`;
    try {
      const out = execFileSync(process.execPath, ['-e', script], {
        cwd: root,
        env: { ...process.env, ...env, DOTENV_FILE: '/nonexistent', MACHINE_SETTINGS_FILE: '/nonexistent' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      return JSON.parse(out.toString());
    } catch (err) {
      throw new Error(String((err as { stderr?: Buffer }).stderr ?? err));
    }
  };

  it('takes the watchdog and billing sweep rates from their settings', () => {
    expect(schedulesWith({ WATCHDOG_RATE: 'rate(2 minutes)', BILLING_SWEEP_RATE: 'rate(1 hour)' })).toEqual({
      watchdog: ['rate(2 minutes)'],
      billingSweep: ['rate(1 hour)'],
      uploadSweep: ['rate(1 hour)'],
    });
  });

  it('stops on a rate EventBridge would refuse, naming the setting', () => {
    expect(() => schedulesWith({ WATCHDOG_RATE: 'rate(1 minutes)' })).toThrow(/WATCHDOG_RATE/);
  });
});
