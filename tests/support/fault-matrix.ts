/**
 * The ledger fault matrix's engine (tests/e2e/ledger-fault-matrix-*.test.ts):
 * each charging path is run once per fault with the fault injected at its
 * boundary (armed) and once without it (disarmed, the cell's control), through
 * the real routes of the test stack, and recovered only by the stack's own
 * schedules (the watchdog and the billing sweep, both every 15 s in the test
 * stack); a test only does what a user or time would: clicks again, or lets a
 * lease run out by writing its time into the row. Then the fake billing
 * service's ledger must equal what the spec bills for the work done: each
 * spend kept whole or given back whole, and their net the credits of the work
 * that was done once.
 *
 * Faults: the invocation ends at a named fault point (lib/faults) before the
 * charge (the spend recorded as asked for, not asked), between the charge and
 * its record, after the record before the work; the work fails (refunded);
 * the work fails while refunds are down (owed, settled by the billing sweep
 * once billing is back); the charge's answer is lost (the fake billing's
 * 'late' mode: every attempt of the call goes unanswered and the spend lands
 * after the caller gave up, so the service's own lost-answer handling is
 * reached, not the client's retry); billing is down at the charge.
 */
import type { FaultPointName } from '../../lib/faults/fault-points';
import { REFUND_PATH, SPEND_PATH } from '../../lib/integrations/billing-contract';
import { eventually } from './api';
import { fakeBilling } from './fake-billing';

const FAULTS = [
  'dies before the charge',
  'dies between the charge and its record',
  'dies after the record before the work',
  'the work fails',
  'billing down during the refund',
  "the charge's answer is lost",
  'billing down at the charge',
] as const;
export type Fault = (typeof FAULTS)[number];

/** The boundary at which a dying invocation ends: the last part of its fault point's name. */
export const BOUNDARY: Partial<Record<Fault, 'recorded' | 'spent' | 'charged'>> = {
  'dies before the charge': 'recorded',
  'dies between the charge and its record': 'spent',
  'dies after the record before the work': 'charged',
};

/** The faults in which the work itself fails (and its charge is given back). */
export const failsTheWork = (fault: Fault) => fault === 'the work fails' || fault === 'billing down during the refund';

/** When a 'late' spend lands: after the billing client's whole call (15 s, its retries included) gave up. */
const LATE_SPEND_MS = 17_000;
/** One tick of a minute schedule, the tick's own run and a margin on a busy machine. */
export const SWEEP_WAIT_MS = 180_000;

/**
 * The fault's part at the billing service, for the team's next calls (a send's or a job's only: one per team).
 * `untilRecovered`: a lost answer stays lost for every later ask too (the billing sweep's confirmation included)
 * until the test calls `fakeBilling.recover`, so the test can read the unconfirmed record before anything confirms it.
 */
export async function injectBillingFault(
  teamId: number,
  fault: Fault,
  { untilRecovered = false }: { untilRecovered?: boolean } = {},
): Promise<void> {
  // Every attempt of the charge call goes unanswered, and the spend lands once the caller has given up on it.
  if (fault === "the charge's answer is lost")
    await fakeBilling.failNext('late', untilRecovered ? 1000 : 3, teamId, SPEND_PATH, { delayMs: LATE_SPEND_MS });
  // Down for every spend until the test brings it back.
  if (fault === 'billing down at the charge') await fakeBilling.failNext('500', 1000, teamId, SPEND_PATH);
  if (fault === 'billing down during the refund') await fakeBilling.failNext('500', 1000, teamId, REFUND_PATH);
}

/** Whether the team's calls met the injected billing fault: any spend answered 'late' or 500, any refund 500. */
export async function billingFaultMet(teamId: number, fault: Fault): Promise<boolean> {
  const calls = await fakeBilling.requests(teamId);
  const spends = calls.filter((c) => c.path === SPEND_PATH);
  const refunds = calls.filter((c) => c.path === REFUND_PATH);
  if (fault === "the charge's answer is lost") return spends.some((c) => c.answered === 'late');
  if (fault === 'billing down at the charge') return spends.some((c) => c.answered === '500');
  if (fault === 'billing down during the refund') return refunds.some((c) => c.answered === '500');
  return false;
}

/** What a cell's run leaves for the ledger check: the team, the reference prefix of its charges, what it bills. */
interface CellRun {
  teamId: number;
  prefix: string;
  billed: number;
}

/** One charging path: runs its work once with the fault armed or disarmed, to its end, and says what is billed. */
export interface MatrixPath {
  name: string;
  run(fault: Fault, armed: boolean): Promise<CellRun>;
}

/** The fault point a path's invocation ends at for a dying fault. */
export const pointOf = (flow: 'job-start' | 'read-the-rest' | 'claims-send' | 'estimation-send', fault: Fault) =>
  `${flow}:${BOUNDARY[fault]}` as FaultPointName;

/** The ledger equals what is billed: every spend under the prefix kept whole or given back whole, netting `billed`. */
async function ledgerEquals({ teamId, prefix, billed }: CellRun) {
  // A refund the billing sweep gives lands on its schedule: the ledger is read until it holds, then must hold.
  const read = async () => {
    const spends = (await fakeBilling.spends(teamId)).filter((s) => s.reference.startsWith(prefix));
    const partial = spends.filter((s) => s.refunded !== 0 && s.refunded !== s.amount);
    const net = spends.reduce((sum, s) => sum + s.amount - s.refunded, 0);
    return { spends, partial, net };
  };
  const ledger = await eventually(async () => {
    const now = await read();
    return now.partial.length === 0 && now.net === billed ? now : null;
  }, 30_000).catch(read);
  expect(ledger.partial).toEqual([]);
  expect({ net: ledger.net, spends: ledger.spends }).toEqual({ net: billed, spends: ledger.spends });
}

type Outcome = { armed?: string; disarmed?: string };
const outcomes = new Map<string, Outcome>();

async function runCell(path: MatrixPath, fault: Fault, armed: boolean): Promise<void> {
  const key = `${path.name}|${fault}`;
  const side = armed ? 'armed' : 'disarmed';
  outcomes.set(key, { ...outcomes.get(key), [side]: 'not' });
  const run = await path.run(fault, armed);
  await ledgerEquals(run);
  // The control: nothing was given back, so no fault cut the work off or failed it.
  if (!armed) expect((await fakeBilling.spends(run.teamId)).filter((s) => s.refunded !== 0)).toEqual([]);
  outcomes.set(key, { ...outcomes.get(key), [side]: 'ok' });
}

/** The matrix of `paths` × FAULTS as a table: ok when the cell passed armed and disarmed. */
function matrixTable(title: string, paths: MatrixPath[]): string {
  const width = Math.max(...paths.map((p) => p.name.length));
  const header = `${'path'.padEnd(width)} | ${FAULTS.join(' | ')}`;
  const rows = paths.map((p) => {
    const cells = FAULTS.map((f) => {
      const o = outcomes.get(`${p.name}|${f}`);
      const text = !o
        ? 'not run'
        : o.armed === 'ok' && o.disarmed === 'ok'
          ? 'ok'
          : `not (armed ${o.armed ?? '-'}, control ${o.disarmed ?? '-'})`;
      return text.padEnd(f.length);
    });
    return `${p.name.padEnd(width)} | ${cells.join(' | ')}`;
  });
  return [
    `${title} (ok: the fault injected and recovered, and its disarmed control, each left the ledger as billed):`,
    header,
    ...rows,
  ].join('\n');
}

/**
 * One test per path, running its cells (every fault, armed and disarmed) at once, each with a team of its own: jest
 * runs at most five concurrent tests, and a cell mostly waits for a schedule. The table is printed after the file.
 */
export function faultMatrix(title: string, paths: MatrixPath[]): void {
  afterAll(() => console.log(matrixTable(title, paths)));
  it.concurrent.each(paths.map((path) => ({ name: path.name, path })))(
    '$name × every fault, armed and disarmed: the ledger equals what the work done is billed',
    async ({ path }) => {
      const cells = FAULTS.flatMap((fault) => [true, false].map((armed) => ({ fault, armed })));
      const results = await Promise.allSettled(cells.map(({ fault, armed }) => runCell(path, fault, armed)));
      const failed = results.flatMap((r, i) =>
        r.status === 'rejected'
          ? [`${cells[i].fault} (${cells[i].armed ? 'armed' : 'disarmed'}): ${String(r.reason?.stack ?? r.reason)}`]
          : [],
      );
      if (failed.length) throw new Error(`${failed.length} cell(s) failed:\n\n${failed.join('\n\n')}`);
    },
  );
}
