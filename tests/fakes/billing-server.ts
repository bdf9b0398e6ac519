/**
 * A fake billing service (the external prepaid credit ledger) speaking the
 * contract documented in lib/integrations/billing-contract.ts, over real HTTP
 * on 127.0.0.1 and a free port. Its ledger (billing-ledger.ts) keeps spends
 * and refunds the way a real ledger with idempotency keys does:
 *
 * - Per-team balances (keyed by app and team_id) you set with setBalance();
 *   `defaultBalance` is the balance of a team never set (0 unless given), so
 *   one fake can serve a whole test run where most teams just need credits.
 * - POST /api/v1/credits/spend is idempotent by reference: a repeat with the
 *   same amount gets the first answer, a charge or a 402 refusal alike (a
 *   refusal is remembered: the reference stays refused after a top-up); a
 *   repeat with another amount answers 409 {error: 'conflict', detail}.
 *   A short balance answers 402 {error: 'insufficient_credits', balance, required, buy_url}.
 * - POST /api/v1/credits/refund gives back the spend with that reference, or
 *   `amount` of it under `refund_reference` (its own idempotency key); a
 *   repeat gets the first answer. A whole refund gives back what is left; a
 *   part larger than what is left answers 409. Unknown reference: 404.
 * - Calls on one key (team and reference: a spend and the refunds of it) are
 *   served one after the other, as a real API's idempotency does: a call that
 *   comes while another on its key is in progress waits for it, then gets the
 *   answer the ledger has then (the same one, for a repeat).
 * - `spends(teamId)` lists the ledger's spends of a team with what each has
 *   had back, so tests can assert the ledger, not only the balance.
 * - GET /api/v1/credits/balance?app=&team_id= answers {balance, buy_url}.
 * - Every call needs `Authorization: Bearer <apiKey>` (401 otherwise).
 * - failNext(mode, count) makes the next `count` requests fail: 500, hang
 *   (never answers, the client times out), empty (200 with an empty body),
 *   garbage (200 with a non-JSON body), reset (connection destroyed), 401,
 *   lost (the request IS applied, then its answer never comes: a client
 *   timeout that hides a charge), late (never answered either, and applied
 *   only `delayMs` after the first such request on its key arrived: the client
 *   has given up before it lands; give a count covering every attempt of the
 *   client's call; a repeat that comes before it applies it at once, and the
 *   late application then finds it applied), slow (answered as usual after
 *   `delayMs`, holding its key meanwhile). Any other failed request changes
 *   no state. Through the control API a failure can be kept for one team's
 *   requests and for one path (e.g. only refunds).
 * - Every request received is recorded in `requests`, in order.
 * - An HTTP control API (never recorded, no auth) lets other processes drive
 *   a fake started once per run (tests/support/fake-billing.ts):
 *   POST /__fake/balance {team_id, balance, app?}, GET /__fake/balance?team_id=&app=,
 *   POST /__fake/fail {mode, count, team_id?, path?, delay_ms?} (team_id: only that team's calls fail),
 *   POST /__fake/recover {team_id?} (drops the pending failures, of that team or all),
 *   POST /__fake/console-refund {team_id, reference, app?} (an operator's whole refund at the service's console:
 *   the ledger's refund, never met by an injected failure),
 *   POST /__fake/late-applied {team_id?} (answers once the late applications waiting are applied),
 *   GET /__fake/requests?team_id= (that team's calls, in order),
 *   GET /__fake/spends?team_id=&app= (that team's ledger).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createLedger, type LedgerSpend } from './billing-ledger';
import { closeConnectionsAfterAnswers, readText, sendJson } from './http';

export type { LedgerSpend } from './billing-ledger';

const FAILURE_MODES = ['500', 'hang', 'empty', 'garbage', 'reset', '401', 'lost', 'late', 'slow'] as const;
export type FailureMode = (typeof FAILURE_MODES)[number];

/** How long a 'late' request waits to be applied, or a 'slow' one to be answered, unless told. */
const DEFAULT_DELAY_MS = 300;

interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** How it was answered: a status, or the failure mode injected (0 while in progress). */
  answered: number | FailureMode;
}

export interface FakeBillingServer {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  /** host:port without a scheme, for bare-domain tests. */
  host: string;
  apiKey: string;
  buyUrl: string;
  requests: RecordedRequest[];
  setBalance(teamId: number | string, balance: number, app?: string): void;
  balance(teamId: number | string, app?: string): number;
  /** The team's spends, in order, with what each has had back. */
  spends(teamId: number | string, app?: string): LedgerSpend[];
  /** The next `count` requests fail with `mode`; `delayMs` for 'late' and 'slow'. */
  failNext(mode: FailureMode, count?: number, options?: { delayMs?: number }): void;
  /** Resolves once every late application waiting now has been applied. */
  lateApplied(): Promise<void>;
  /** Requests to one path (without query). */
  requestsTo(path: string): RecordedRequest[];
  /** Clear recorded requests and pending failures (balances, the ledger and late applications stay). */
  reset(): void;
  stop(): Promise<void>;
}

interface Failure {
  mode: FailureMode;
  teamId: string | null;
  path: string | null;
  delayMs: number;
}

const SPEND = '/api/v1/credits/spend';
const REFUND = '/api/v1/credits/refund';
const BALANCE = '/api/v1/credits/balance';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startFakeBillingServer(
  options: { apiKey?: string; app?: string; buyUrl?: string; defaultBalance?: number } = {},
): Promise<FakeBillingServer> {
  const apiKey = options.apiKey ?? 'fake-billing-key';
  const defaultApp = options.app ?? 'contents-inventory';
  const buyUrl = options.buyUrl ?? 'https://billing.example.test/buy';
  const ledger = createLedger({ defaultBalance: options.defaultBalance, buyUrl });
  const requests: RecordedRequest[] = [];
  const failures: Failure[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();
  /** The tail of the calls in progress on each key. */
  const queues = new Map<string, Promise<unknown>>();
  /** Late applications waiting, by key, with the team they are for. */
  const late = new Map<string, { teamId: string; timer: NodeJS.Timeout; done: Promise<void> }>();

  const teamOf = (record: Pick<RecordedRequest, 'body' | 'query'>) =>
    String(record.body?.team_id ?? record.query.team_id ?? '');
  const send = sendJson;

  /** The key a call is served under: its team and the reference of the spend it is about (none for a balance). */
  function keyOf(path: string, body: any): string | null {
    if ((path !== SPEND && path !== REFUND) || typeof body?.reference !== 'string') return null;
    return `${ledger.teamKey(String(body.app), body.team_id)}#${body.reference}`;
  }

  /** Runs `work` after every call already in progress on `key`. */
  function serially<T>(key: string | null, work: () => T | Promise<T>): Promise<T> {
    const run = (key === null ? Promise.resolve() : (queues.get(key) ?? Promise.resolve())).then(work);
    if (key !== null) {
      const tail = run.catch(() => undefined);
      queues.set(key, tail);
      void tail.then(() => {
        if (queues.get(key) === tail) queues.delete(key);
      });
    }
    return run;
  }

  /** Applies one authorised call to the ledger. */
  function apply(path: string, method: string, query: URLSearchParams, body: any): [number, unknown] {
    if (method === 'POST' && path === SPEND) return ledger.spend(body);
    if (method === 'POST' && path === REFUND) return ledger.refund(body);
    if (method === 'GET' && path === BALANCE) {
      const app = query.get('app');
      const teamId = query.get('team_id');
      if (!app || !teamId) return [422, { error: 'invalid_request' }];
      return [200, { balance: ledger.balanceOf(ledger.teamKey(app, teamId)), buy_url: buyUrl }];
    }
    return [404, { error: 'not_found' }];
  }

  /** Applies the call `delayMs` after now, unless an application of its key is already waiting. */
  function applyLate(key: string, teamId: string, delayMs: number, call: () => void) {
    if (late.has(key)) return;
    let resolve = () => {};
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    const timer = setTimeout(() => {
      void serially(key, call).finally(() => {
        late.delete(key);
        resolve();
      });
    }, delayMs);
    late.set(key, { teamId, timer, done });
  }

  function lateApplied(teamId: string | null): Promise<void> {
    return Promise.all(
      [...late.values()].filter((l) => teamId === null || l.teamId === teamId).map((l) => l.done),
    ).then(() => undefined);
  }

  function hold(res: ServerResponse) {
    hanging.add(res);
    res.on('close', () => hanging.delete(res));
  }

  function addFailures(mode: FailureMode, count: number, where: Omit<Failure, 'mode'>) {
    for (let i = 0; i < count; i++) failures.push({ mode, ...where });
  }

  /** The control API: answers true when it handled the request. */
  async function control(
    path: string,
    method: string,
    query: URLSearchParams,
    body: any,
    res: ServerResponse,
  ): Promise<boolean> {
    if (!path.startsWith('/__fake/')) return false;
    const team = body?.team_id === undefined || body?.team_id === null ? null : String(body.team_id);
    if (method === 'POST' && path === '/__fake/balance') {
      ledger.setBalance(ledger.teamKey(body?.app ?? defaultApp, body?.team_id), Number(body?.balance));
      send(res, 200, { ok: true });
    } else if (method === 'GET' && path === '/__fake/balance') {
      send(res, 200, {
        balance: ledger.balanceOf(ledger.teamKey(query.get('app') ?? defaultApp, query.get('team_id'))),
      });
    } else if (method === 'POST' && path === '/__fake/fail') {
      if (!FAILURE_MODES.includes(body?.mode)) {
        send(res, 400, { error: `mode must be one of ${FAILURE_MODES.join(', ')}` });
        return true;
      }
      addFailures(body.mode, Number(body?.count ?? 1), {
        teamId: team,
        path: typeof body?.path === 'string' ? body.path : null,
        delayMs: typeof body?.delay_ms === 'number' ? body.delay_ms : DEFAULT_DELAY_MS,
      });
      send(res, 200, { ok: true });
    } else if (method === 'POST' && path === '/__fake/recover') {
      for (let i = failures.length - 1; i >= 0; i--)
        if (team === null || failures[i].teamId === team) failures.splice(i, 1);
      send(res, 200, { ok: true });
    } else if (method === 'POST' && path === '/__fake/console-refund') {
      // An operator's whole refund at the service's own console: applied to the ledger as a refund call would be,
      // but never met by the failures injected into the API.
      const [status, answer] = ledger.refund({
        app: body?.app ?? defaultApp,
        team_id: body?.team_id,
        reference: body?.reference,
      });
      send(res, status, answer);
    } else if (method === 'POST' && path === '/__fake/late-applied') {
      await lateApplied(team);
      send(res, 200, { ok: true });
    } else if (method === 'GET' && path === '/__fake/spends') {
      send(res, 200, ledger.ledger(ledger.teamKey(query.get('app') ?? defaultApp, query.get('team_id'))));
    } else if (method === 'GET' && path === '/__fake/requests') {
      const only = query.get('team_id');
      send(
        res,
        200,
        requests.filter((r) => only === null || teamOf(r) === only).map(({ headers: _headers, ...rest }) => rest),
      );
    } else {
      send(res, 404, { error: 'unknown control path' });
    }
    return true;
  }

  async function readBody(req: IncomingMessage): Promise<any> {
    const text = await readText(req);
    if (!text) return null;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    if (await control(url.pathname, req.method ?? 'GET', url.searchParams, body, res)) return;
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
      answered: 0,
    };
    requests.push(record);
    const authorised = req.headers.authorization === `Bearer ${apiKey}`;
    const key = authorised ? keyOf(record.path, body) : null;
    const applyIt = () => apply(url.pathname, record.method, url.searchParams, body);
    const at = failures.findIndex(
      (f) => (f.teamId === null || f.teamId === teamOf(record)) && (f.path === null || f.path === record.path),
    );
    const failure = at < 0 ? undefined : failures.splice(at, 1)[0];
    if (failure) {
      record.answered = failure.mode;
      switch (failure.mode) {
        case '500':
          send(res, 500, { error: 'internal' });
          return;
        case '401':
          send(res, 401, { error: 'unauthorized' });
          return;
        case 'empty':
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': 0 });
          res.end();
          return;
        case 'garbage':
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html>maintenance</html>');
          return;
        case 'reset':
          req.socket.destroy();
          return;
        case 'hang':
          hold(res);
          return;
        case 'lost':
          // Applied as usual, but the answer goes nowhere: the client only sees a hang.
          hold(res);
          if (authorised) await serially(key, applyIt);
          return;
        case 'late':
          // Never answered, and applied only after the client has given up.
          hold(res);
          if (key !== null) applyLate(key, teamOf(record), failure.delayMs, applyIt);
          return;
        case 'slow':
          break;
      }
    }
    if (!authorised) {
      record.answered = send(res, 401, { error: 'unauthorized' });
      return;
    }
    const delayMs = failure?.mode === 'slow' ? failure.delayMs : 0;
    const [status, answer] = await serially(key, async () => {
      if (delayMs > 0) await sleep(delayMs);
      return applyIt();
    });
    if (!failure) record.answered = status;
    // A client that gave up meanwhile has no one to read the answer.
    if (!res.destroyed) send(res, status, answer);
  });
  closeConnectionsAfterAnswers(server);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    apiKey,
    buyUrl,
    requests,
    setBalance(teamId, balance, app = defaultApp) {
      ledger.setBalance(ledger.teamKey(app, teamId), balance);
    },
    balance(teamId, app = defaultApp) {
      return ledger.balanceOf(ledger.teamKey(app, teamId));
    },
    spends(teamId, app = defaultApp) {
      return ledger.ledger(ledger.teamKey(app, teamId));
    },
    failNext(mode, count = 1, failOptions = {}) {
      addFailures(mode, count, { teamId: null, path: null, delayMs: failOptions.delayMs ?? DEFAULT_DELAY_MS });
    },
    lateApplied: () => lateApplied(null),
    requestsTo(path) {
      return requests.filter((r) => r.path === path);
    },
    reset() {
      requests.length = 0;
      failures.length = 0;
    },
    async stop() {
      for (const { timer } of late.values()) clearTimeout(timer);
      late.clear();
      for (const res of hanging) res.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
