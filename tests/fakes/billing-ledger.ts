/**
 * The fake billing service's ledger (tests/fakes/billing-server.ts serves it
 * over HTTP): balances, spends and their refunds, kept the way a real ledger
 * with idempotency keys keeps them.
 *
 * - A spend is idempotent per (app, team_id, reference): a repeat with the
 *   same amount gets the first answer, a 200 or a 402 refusal alike (a refusal
 *   is remembered: the reference stays refused however the balance moves); a
 *   repeat with a different amount is refused with 409 and changes nothing.
 * - A refund is idempotent per refund reference (the spend's own when none is
 *   given). A whole refund gives back what is left of the spend (0 once parts
 *   gave it all back); a part larger than what is left, or a refund reference
 *   repeated with another amount, is refused with 409. A reference the team
 *   never spent (or was refused) answers 404.
 * Every function here is synchronous: the server runs each call on one key
 * after the other, so no two calls interleave.
 */
import { randomUUID } from 'node:crypto';

/** One spend on the ledger and what it has had back. */
export interface LedgerSpend {
  reference: string;
  amount: number;
  refunded: number;
  refunds: string[];
}

interface Spend {
  teamKey: string;
  amount: number;
  reference: string;
  answer: { transaction_id: string; balance: number };
  refunded: number;
  /** Refund answers by refund reference, with the amount each asked for (undefined: the whole rest). */
  refunds: Map<
    string,
    { asked: number | undefined; answer: { transaction_id: string; balance: number; refunded: true; amount: number } }
  >;
}

type Reply = [number, unknown];

export function createLedger(options: { defaultBalance?: number; buyUrl: string }) {
  const balances = new Map<string, number>();
  const spends = new Map<string, Spend>();
  /** Refused spends by reference key: the amount asked and the 402 answered. */
  const refusals = new Map<string, { amount: number; answer: unknown }>();

  const teamKey = (app: string, teamId: unknown) => `${app}#${String(teamId)}`;
  const balanceOf = (key: string) => balances.get(key) ?? options.defaultBalance ?? 0;
  const conflict = (detail: string): Reply => [409, { error: 'conflict', detail }];

  function spend(body: any): Reply {
    const { app, team_id, amount, reference } = body ?? {};
    if (
      typeof app !== 'string' ||
      team_id === undefined ||
      team_id === null ||
      typeof reference !== 'string' ||
      !reference ||
      typeof amount !== 'number' ||
      !(amount > 0)
    )
      return [422, { error: 'invalid_request' }];
    const key = teamKey(app, team_id);
    const refKey = `${key}#${reference}`;
    const earlier = spends.get(refKey) ?? refusals.get(refKey);
    if (earlier) {
      if (earlier.amount !== amount)
        return conflict(`reference ${reference} was used for ${earlier.amount} credits, not ${amount}`);
      return spends.has(refKey) ? [200, earlier.answer] : [402, earlier.answer];
    }
    const balance = balanceOf(key);
    if (balance < amount) {
      const answer = { error: 'insufficient_credits', balance, required: amount, buy_url: options.buyUrl };
      refusals.set(refKey, { amount, answer });
      return [402, answer];
    }
    balances.set(key, balance - amount);
    const answer = { transaction_id: `txn_${randomUUID()}`, balance: balance - amount };
    spends.set(refKey, { teamKey: key, amount, reference, answer, refunded: 0, refunds: new Map() });
    return [200, answer];
  }

  function refund(body: any): Reply {
    const { app, team_id, reference, refund_reference, amount } = body ?? {};
    if (typeof app !== 'string' || team_id === undefined || team_id === null || typeof reference !== 'string')
      return [422, { error: 'invalid_request' }];
    if (amount !== undefined && (typeof amount !== 'number' || !(amount > 0)))
      return [422, { error: 'invalid_request' }];
    const key = teamKey(app, team_id);
    const spent = spends.get(`${key}#${reference}`);
    if (!spent) return [404, { error: 'unknown_reference' }];
    const refundKey = typeof refund_reference === 'string' && refund_reference ? refund_reference : reference;
    const earlier = spent.refunds.get(refundKey);
    if (earlier) {
      if (earlier.asked !== amount)
        return conflict(
          `refund ${refundKey} was asked for ${earlier.asked ?? 'the rest'}, not ${amount ?? 'the rest'}`,
        );
      return [200, earlier.answer];
    }
    const left = spent.amount - spent.refunded;
    if (amount !== undefined && amount > left)
      return conflict(`refund of ${amount} credits: only ${left} of spend ${reference} is left to give back`);
    const back = amount ?? left;
    const balance = balanceOf(key) + back;
    balances.set(key, balance);
    spent.refunded += back;
    const answer = { transaction_id: `txn_${randomUUID()}`, balance, refunded: true as const, amount: back };
    spent.refunds.set(refundKey, { asked: amount, answer });
    return [200, answer];
  }

  return {
    teamKey,
    balanceOf,
    setBalance: (key: string, balance: number) => balances.set(key, balance),
    spend,
    refund,
    /** The team's spends, in order, with what each has had back. */
    ledger: (key: string): LedgerSpend[] =>
      [...spends.values()]
        .filter((s) => s.teamKey === key)
        .map((s) => ({
          reference: s.reference,
          amount: s.amount,
          refunded: s.refunded,
          refunds: [...s.refunds.keys()],
        })),
  };
}
