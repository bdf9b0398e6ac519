/** Credit rules (spec: Limits > Credit prices and charging; Outbound signals, Revenue). */
import {
  billedBlocks,
  billedMinutes,
  jobCharge,
  prepaidBillingActive,
  prepaidMode,
  revenueUsd,
  teamCreditRate,
  type CreditSettings,
} from '../../../lib/billing/credit-rules';
import { loadSettings, resetSettings } from '../../../lib/config';
import { logger } from '../../../lib/observability/logger';

const isolated = (env: Record<string, string> = {}) =>
  loadSettings({ env, overrides: {}, dotenvPath: '/nonexistent', machineFilePath: '/nonexistent' });
const defaults = isolated();

beforeEach(() => {
  resetSettings(defaults);
  jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
});
afterEach(() => {
  jest.restoreAllMocks();
  resetSettings();
});

describe('billedBlocks', () => {
  it.each([
    [20, 1],
    [25, 2],
    [90, 5],
    [1, 1],
    [40, 2],
    [40.5, 3],
    [60.000000000001, 3],
  ])('%s s is %s block(s) of 20 s', (seconds, blocks) => {
    expect(billedBlocks(seconds, 20)).toBe(blocks);
  });

  it.each([[0], [null], [undefined], [-5], [Number.NaN]])('%s seconds is 0 blocks', (seconds) => {
    expect(billedBlocks(seconds as number | null | undefined, 20)).toBe(0);
  });

  it('uses the configured block length', () => {
    expect(billedBlocks(25, 30)).toBe(1);
    expect(billedBlocks(61, 30)).toBe(3);
  });

  it('refuses a non-positive block length', () => {
    expect(() => billedBlocks(20, 0)).toThrow(RangeError);
  });
});

describe('billedMinutes', () => {
  it('rounds up to whole minutes', () => {
    expect(billedMinutes(0)).toBe(0);
    expect(billedMinutes(null)).toBe(0);
    expect(billedMinutes(1)).toBe(1);
    expect(billedMinutes(60)).toBe(1);
    expect(billedMinutes(61)).toBe(2);
  });
});

describe('jobCharge', () => {
  it('refuses a source type it has no price for', () => {
    expect(() => jobCharge({ sourceType: 'fax' as never, durationSeconds: 10 })).toThrow(RangeError);
  });

  it('uses the spec defaults: video 3 per block, audio 1 per block, photo 1 per request, 20 s blocks', () => {
    expect(defaults).toMatchObject({
      BILLING_BLOCK_SECONDS: 20,
      COST_PER_VIDEO_BLOCK: 3,
      COST_PER_AUDIO_BLOCK: 1,
      COST_PER_PHOTO_REQUEST: 1,
    });
  });

  it('charges video per block', () => {
    expect(jobCharge({ sourceType: 'video', durationSeconds: 25 })).toEqual({ credits: 6, blocks: 2, minutes: 1 });
    expect(jobCharge({ sourceType: 'video', durationSeconds: 125 })).toEqual({ credits: 21, blocks: 7, minutes: 3 });
  });

  it('charges audio per block (90 s of audio is 5 blocks)', () => {
    expect(jobCharge({ sourceType: 'audio', durationSeconds: 90 })).toEqual({ credits: 5, blocks: 5, minutes: 2 });
  });

  it('charges photos per AI request; the caller leaves named groups out of the count', () => {
    expect(jobCharge({ sourceType: 'photo', photoRequests: 4 })).toEqual({ credits: 4, blocks: 4, minutes: 0 });
    expect(jobCharge({ sourceType: 'photo', photoRequests: 0 })).toEqual({ credits: 0, blocks: 0, minutes: 0 });
    expect(jobCharge({ sourceType: 'photo' })).toEqual({ credits: 0, blocks: 0, minutes: 0 });
    // Duration does not price a photo job.
    expect(jobCharge({ sourceType: 'photo', photoRequests: 2, durationSeconds: 600 })).toEqual({
      credits: 2,
      blocks: 2,
      minutes: 0,
    });
  });

  it('charges nothing for a missing or zero duration', () => {
    expect(jobCharge({ sourceType: 'video', durationSeconds: null })).toEqual({ credits: 0, blocks: 0, minutes: 0 });
    expect(jobCharge({ sourceType: 'audio', durationSeconds: 0 })).toEqual({ credits: 0, blocks: 0, minutes: 0 });
  });

  it('charges enterprise teams and training claims 0 credits but keeps the basis', () => {
    expect(jobCharge({ sourceType: 'video', durationSeconds: 90, enterprise: true })).toEqual({
      credits: 0,
      blocks: 5,
      minutes: 2,
    });
    expect(jobCharge({ sourceType: 'audio', durationSeconds: 90, training: true })).toEqual({
      credits: 0,
      blocks: 5,
      minutes: 2,
    });
    expect(jobCharge({ sourceType: 'photo', photoRequests: 3, enterprise: true, training: true })).toEqual({
      credits: 0,
      blocks: 3,
      minutes: 0,
    });
  });

  it('reads the prices given (or current at call time), so a rate change applies only to later charges', () => {
    const before = jobCharge({ sourceType: 'video', durationSeconds: 40 });
    resetSettings(isolated({ COST_PER_VIDEO_BLOCK: '5', BILLING_BLOCK_SECONDS: '30' }));
    const after = jobCharge({ sourceType: 'video', durationSeconds: 40 });
    expect(before).toEqual({ credits: 6, blocks: 2, minutes: 1 });
    expect(after).toEqual({ credits: 10, blocks: 2, minutes: 1 });
    const explicit: CreditSettings = {
      BILLING_BLOCK_SECONDS: 10,
      COST_PER_VIDEO_BLOCK: 1,
      COST_PER_AUDIO_BLOCK: 2,
      COST_PER_PHOTO_REQUEST: 7,
    };
    expect(jobCharge({ sourceType: 'audio', durationSeconds: 25, settings: explicit })).toEqual({
      credits: 6,
      blocks: 3,
      minutes: 1,
    });
    expect(jobCharge({ sourceType: 'photo', photoRequests: 2, settings: explicit }).credits).toBe(14);
  });

  it('rounds a fractional price up to whole credits', () => {
    const prices: CreditSettings = {
      BILLING_BLOCK_SECONDS: 20,
      COST_PER_VIDEO_BLOCK: 1.5,
      COST_PER_AUDIO_BLOCK: 0.5,
      COST_PER_PHOTO_REQUEST: 1,
    };
    expect(jobCharge({ sourceType: 'video', durationSeconds: 60, settings: prices }).credits).toBe(5); // 3 × 1.5 = 4.5
    expect(jobCharge({ sourceType: 'audio', durationSeconds: 80, settings: prices }).credits).toBe(2); // 4 × 0.5
  });
});

describe('revenue', () => {
  it("uses the team's credit rate", () => {
    expect(teamCreditRate({ credit_rate: 0.2 })).toBe(0.2);
    expect(revenueUsd(10, { credit_rate: 0.2 })).toBe(2);
    expect(revenueUsd(3, { credit_rate: 0.25 })).toBe(0.75);
  });

  it('falls back to DEFAULT_TEAM_CREDIT_RATE (0.15) when the team has none', () => {
    expect(defaults.DEFAULT_TEAM_CREDIT_RATE).toBe(0.15);
    expect(revenueUsd(3, { credit_rate: null })).toBe(0.45);
    expect(revenueUsd(10, null)).toBe(1.5);
    expect(revenueUsd(10, { credit_rate: null }, { DEFAULT_TEAM_CREDIT_RATE: 0.1 })).toBe(1);
  });

  it('keeps a team rate of 0 (free team) rather than the default', () => {
    expect(revenueUsd(10, { credit_rate: 0 })).toBe(0);
  });

  it('is 0 for no credits', () => {
    expect(revenueUsd(0, { credit_rate: 0.2 })).toBe(0);
  });
});

describe('prepaid mode', () => {
  const mode = (env: Record<string, string>) => isolated(env);

  it('is off by default', () => {
    expect(prepaidMode(defaults)).toEqual({ active: false, reason: 'off', missing: [] });
    expect(prepaidBillingActive(defaults)).toBe(false);
    expect(logger.warn).not.toHaveBeenCalled();
  });

  it('is on with ENABLE_BILLING and both the domain and key', () => {
    const config = mode({
      ENABLE_BILLING: 'true',
      BILLING_APP_DOMAIN: 'billing.example.com',
      BILLING_APP_API_KEY: 'k',
    });
    expect(prepaidMode(config)).toEqual({ active: true, reason: 'active', missing: [] });
    expect(prepaidBillingActive(config)).toBe(true);
  });

  it.each([
    [{ BILLING_APP_API_KEY: 'k' }, ['BILLING_APP_DOMAIN']],
    [{ BILLING_APP_DOMAIN: 'billing.example.com' }, ['BILLING_APP_API_KEY']],
    [{}, ['BILLING_APP_DOMAIN', 'BILLING_APP_API_KEY']],
  ])('fails open with ENABLE_BILLING on and a gap (%j), logging the missing names only', (env, missing) => {
    const config = mode({ ENABLE_BILLING: 'true', ...env });
    expect(prepaidMode(config)).toEqual({ active: false, reason: 'config_gap', missing });
    expect(prepaidBillingActive(config)).toBe(false);
    expect(logger.warn).toHaveBeenCalledWith(expect.stringContaining('failing open'), { missing });
  });

  it('ignores the domain and key with ENABLE_BILLING off', () => {
    expect(prepaidBillingActive(mode({ BILLING_APP_DOMAIN: 'billing.example.com', BILLING_APP_API_KEY: 'k' }))).toBe(
      false,
    );
  });
});
