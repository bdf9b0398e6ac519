/**
 * A fake billing service (the external prepaid credit ledger) speaking the
 * contract documented in lib/integrations/billing-service.ts, over real HTTP
 * on 127.0.0.1 and a free port.
 *
 * - Per-team balances (keyed by app and team_id) you set with setBalance().
 * - POST /api/v1/credits/spend is idempotent by reference: a repeated
 *   reference returns the first answer and does not charge twice. A short
 *   balance answers 402 {error: 'insufficient_credits', balance, required, buy_url}
 *   (a refusal is not remembered, so the same reference may succeed later).
 * - POST /api/v1/credits/refund restores the spend with that reference once;
 *   a second refund returns the same answer. Unknown reference: 404. With
 *   `amount` (and `refund_reference`, its own idempotency key) it gives back
 *   only that much; a spend never gives back more than it took.
 * - `spends(teamId)` lists the ledger's spends of a team with what each has
 *   had back, so tests can assert the ledger, not only the balance.
 * - GET /api/v1/credits/balance?app=&team_id= answers {balance, buy_url}.
 * - Every call needs `Authorization: Bearer <apiKey>` (401 otherwise).
 * - failNext(mode, count) makes the next `count` requests fail: 500, hang
 *   (never answers, the client times out), empty (200 with an empty body),
 *   garbage (200 with a non-JSON body), reset (connection destroyed), 401,
 *   lost (the request IS applied, then its answer never comes: a client
 *   timeout that hides a charge). Any other failed request changes no state.
 *   Through the control API a failure can be kept for one team's requests
 *   and for one path (e.g. only refunds).
 * - Every request received is recorded in `requests`, in order.
 * - `defaultBalance` is the balance of a team never set (0 unless given), so
 *   one fake can serve a whole test run where most teams just need credits.
 * - An HTTP control API (never recorded, no auth) lets other processes drive
 *   a fake started once per run (tests/support/fake-billing.ts):
 *   POST /__fake/balance {team_id, balance, app?}, GET /__fake/balance?team_id=&app=,
 *   POST /__fake/fail {mode, count, team_id?} (team_id: only that team's calls fail),
 *   POST /__fake/recover {team_id?} (drops the pending failures, of that team or all),
 *   GET /__fake/requests?team_id= (that team's calls, in order),
 *   GET /__fake/spends?team_id=&app= (that team's ledger).
 */
import { closeConnectionsAfterAnswers, readText, sendJson } from './http';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export type FailureMode = '500' | 'hang' | 'empty' | 'garbage' | 'reset' | '401' | 'lost';

/** One spend on the ledger and what it has had back. */
export interface LedgerSpend {
  reference: string;
  amount: number;
  refunded: number;
  refunds: string[];
}

interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** How it was answered: a status, or the failure mode injected. */
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
  failNext(mode: FailureMode, count?: number): void;
  /** Requests to one path (without query). */
  requestsTo(path: string): RecordedRequest[];
  /** Clear recorded requests and pending failures (balances and ledger stay). */
  reset(): void;
  stop(): Promise<void>;
}

interface Spend {
  app: string;
  teamKey: string;
  amount: number;
  reference: string;
  answer: { transaction_id: string; balance: number };
  refunded: number;
  /** Refund answers by refund reference. */
  refunds: Map<string, { transaction_id: string; balance: number; refunded: true; amount: number }>;
}

export async function startFakeBillingServer(
  options: { apiKey?: string; app?: string; buyUrl?: string; defaultBalance?: number } = {},
): Promise<FakeBillingServer> {
  const apiKey = options.apiKey ?? 'fake-billing-key';
  const defaultApp = options.app ?? 'contents-inventory';
  const buyUrl = options.buyUrl ?? 'https://billing.example.test/buy';
  const balances = new Map<string, number>();
  const spends = new Map<string, Spend>();
  const requests: RecordedRequest[] = [];
  const failures: { mode: FailureMode; teamId: string | null; path: string | null }[] = [];
  const sockets = new Set<Socket>();
  const hanging = new Set<ServerResponse>();

  const teamKey = (app: string, teamId: unknown) => `${app}#${String(teamId)}`;
  const balanceOf = (key: string) => balances.get(key) ?? options.defaultBalance ?? 0;
  const teamOf = (record: Pick<RecordedRequest, 'body' | 'query'>) =>
    String(record.body?.team_id ?? record.query.team_id ?? '');

  /** The control API: answers true when it handled the request. */
  function control(path: string, method: string, query: URLSearchParams, body: any, res: ServerResponse): boolean {
    if (!path.startsWith('/__fake/')) return false;
    if (method === 'POST' && path === '/__fake/balance') {
      balances.set(teamKey(body?.app ?? defaultApp, body?.team_id), Number(body?.balance));
      send(res, 200, { ok: true });
    } else if (method === 'GET' && path === '/__fake/balance') {
      send(res, 200, { balance: balanceOf(teamKey(query.get('app') ?? defaultApp, query.get('team_id'))) });
    } else if (method === 'POST' && path === '/__fake/fail') {
      for (let i = 0; i < Number(body?.count ?? 1); i++)
        failures.push({
          mode: body?.mode,
          teamId: body?.team_id === undefined ? null : String(body.team_id),
          path: typeof body?.path === 'string' ? body.path : null,
        });
      send(res, 200, { ok: true });
    } else if (method === 'POST' && path === '/__fake/recover') {
      const team = body?.team_id === undefined ? null : String(body.team_id);
      for (let i = failures.length - 1; i >= 0; i--)
        if (team === null || failures[i].teamId === team) failures.splice(i, 1);
      send(res, 200, { ok: true });
    } else if (method === 'GET' && path === '/__fake/spends') {
      send(res, 200, ledger(teamKey(query.get('app') ?? defaultApp, query.get('team_id'))));
    } else if (method === 'GET' && path === '/__fake/requests') {
      const team = query.get('team_id');
      send(
        res,
        200,
        requests.filter((r) => team === null || teamOf(r) === team).map(({ headers: _headers, ...rest }) => rest),
      );
    } else {
      send(res, 404, { error: 'unknown control path' });
    }
    return true;
  }

  const send = sendJson;

  function ledger(key: string): LedgerSpend[] {
    return [...spends.values()]
      .filter((s) => s.teamKey === key)
      .map((s) => ({ reference: s.reference, amount: s.amount, refunded: s.refunded, refunds: [...s.refunds.keys()] }));
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

  const reply = (status: number, body: unknown): [number, unknown] => [status, body];

  /** Applies one call to the ledger; the answer is sent by the caller (or lost). */
  function handle(path: string, method: string, query: URLSearchParams, body: any): [number, unknown] {
    if (method === 'POST' && path === '/api/v1/credits/spend') {
      const { app, team_id, amount, reference } = body ?? {};
      if (
        typeof app !== 'string' ||
        team_id === undefined ||
        team_id === null ||
        typeof reference !== 'string' ||
        !reference ||
        typeof amount !== 'number' ||
        !(amount > 0)
      ) {
        return reply(422, { error: 'invalid_request' });
      }
      const key = teamKey(app, team_id);
      const refKey = `${key}#${reference}`;
      const earlier = spends.get(refKey);
      if (earlier) return reply(200, earlier.answer);
      const balance = balanceOf(key);
      if (balance < amount)
        return reply(402, { error: 'insufficient_credits', balance, required: amount, buy_url: buyUrl });
      balances.set(key, balance - amount);
      const answer = { transaction_id: `txn_${randomUUID()}`, balance: balance - amount };
      spends.set(refKey, { app, teamKey: key, amount, reference, answer, refunded: 0, refunds: new Map() });
      return reply(200, answer);
    }
    if (method === 'POST' && path === '/api/v1/credits/refund') {
      const { app, team_id, reference, refund_reference, amount } = body ?? {};
      if (typeof app !== 'string' || team_id === undefined || team_id === null || typeof reference !== 'string')
        return reply(422, { error: 'invalid_request' });
      if (amount !== undefined && (typeof amount !== 'number' || !(amount > 0)))
        return reply(422, { error: 'invalid_request' });
      const key = teamKey(app, team_id);
      const spend = spends.get(`${key}#${reference}`);
      if (!spend) return reply(404, { error: 'unknown_reference' });
      const refundKey = typeof refund_reference === 'string' && refund_reference ? refund_reference : reference;
      let answer = spend.refunds.get(refundKey);
      if (!answer) {
        // Never more back than the spend took.
        const back = Math.min(amount ?? spend.amount, spend.amount - spend.refunded);
        const balance = balanceOf(key) + back;
        balances.set(key, balance);
        spend.refunded += back;
        answer = { transaction_id: `txn_${randomUUID()}`, balance, refunded: true, amount: back };
        spend.refunds.set(refundKey, answer);
      }
      return reply(200, answer);
    }
    if (method === 'GET' && path === '/api/v1/credits/balance') {
      const app = query.get('app');
      const teamId = query.get('team_id');
      if (!app || !teamId) return reply(422, { error: 'invalid_request' });
      return reply(200, { balance: balanceOf(teamKey(app, teamId)), buy_url: buyUrl });
    }
    return reply(404, { error: 'not_found' });
  }

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    if (control(url.pathname, req.method ?? 'GET', url.searchParams, body, res)) return;
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body,
      answered: 0,
    };
    requests.push(record);
    const at = failures.findIndex(
      (f) => (f.teamId === null || f.teamId === teamOf(record)) && (f.path === null || f.path === record.path),
    );
    const failure = at < 0 ? undefined : failures.splice(at, 1)[0].mode;
    if (failure) {
      record.answered = failure;
      switch (failure) {
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
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        case 'lost': {
          // Applied as usual, but the answer goes nowhere: the client only sees a hang.
          if (req.headers.authorization === `Bearer ${apiKey}`)
            handle(url.pathname, record.method, url.searchParams, body);
          hanging.add(res);
          res.on('close', () => hanging.delete(res));
          return;
        }
      }
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      record.answered = send(res, 401, { error: 'unauthorized' });
      return;
    }
    record.answered = send(res, ...handle(url.pathname, record.method, url.searchParams, body));
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
      balances.set(teamKey(app, teamId), balance);
    },
    balance(teamId, app = defaultApp) {
      return balanceOf(teamKey(app, teamId));
    },
    spends(teamId, app = defaultApp) {
      return ledger(teamKey(app, teamId));
    },
    failNext(mode, count = 1) {
      for (let i = 0; i < count; i++) failures.push({ mode, teamId: null, path: null });
    },
    requestsTo(path) {
      return requests.filter((r) => r.path === path);
    },
    reset() {
      requests.length = 0;
      failures.length = 0;
    },
    async stop() {
      for (const res of hanging) res.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
