/**
 * Drives a fake billing service through its HTTP control API
 * (tests/fakes/billing-server.ts): `fakeBilling` the one the test run started
 * (global setup), `fakeBillingAt(url)` any other.
 */
import type { FailureMode, LedgerSpend } from '../fakes/billing-server';

function runBase(): string {
  const url = process.env.TEST_FAKE_BILLING_URL;
  if (!url)
    throw new Error(
      'TEST_FAKE_BILLING_URL is not set: the fake billing service starts in tests/support/global-setup.ts',
    );
  return url;
}

export function fakeBillingAt(base: () => string) {
  async function call(method: string, path: string, body?: unknown): Promise<any> {
    const res = await fetch(`${base()}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`fake billing control ${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  }
  const team = (id: number | string) => encodeURIComponent(String(id));

  return {
    setBalance: (teamExternalId: number | string, balance: number) =>
      call('POST', '/__fake/balance', { team_id: teamExternalId, balance }),
    balance: async (teamExternalId: number | string): Promise<number> =>
      (await call('GET', `/__fake/balance?team_id=${team(teamExternalId)}`)).balance,
    /**
     * The team's next `count` requests fail with `mode`; only those to `path` when it is given. `delayMs`: when a
     * 'late' request is applied after the first of its key arrived, or how long a 'slow' one takes (default 300).
     */
    failNext: (
      mode: FailureMode,
      count: number,
      teamExternalId: number | string,
      path?: string,
      options: { delayMs?: number } = {},
    ) =>
      call('POST', '/__fake/fail', {
        mode,
        count,
        team_id: teamExternalId,
        ...(path ? { path } : {}),
        ...(options.delayMs !== undefined ? { delay_ms: options.delayMs } : {}),
      }),
    /** Drops the team's pending failures: the service is back for it. */
    recover: (teamExternalId: number | string) => call('POST', '/__fake/recover', { team_id: teamExternalId }),
    /** An operator gives the whole spend back at the service's console (the API's injected failures do not apply). */
    consoleRefund: (teamExternalId: number | string, reference: string) =>
      call('POST', '/__fake/console-refund', { team_id: teamExternalId, reference }),
    /** Resolves once the team's late applications ('late' failures) waiting now have landed. */
    lateApplied: (teamExternalId: number | string) => call('POST', '/__fake/late-applied', { team_id: teamExternalId }),
    /** The team's ledger: each spend with what it has had back. */
    spends: (teamExternalId: number | string): Promise<LedgerSpend[]> =>
      call('GET', `/__fake/spends?team_id=${team(teamExternalId)}`),
    /** The calls made for one team, in order: {method, path, body, answered}. */
    requests: async (
      teamExternalId: number | string,
    ): Promise<{ method: string; path: string; body: any; answered: number | string }[]> =>
      call('GET', `/__fake/requests?team_id=${team(teamExternalId)}`),
  };
}

export const fakeBilling = fakeBillingAt(runBase);
