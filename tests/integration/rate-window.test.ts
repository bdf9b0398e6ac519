/**
 * The shared rate window (lib/db/rate-window.ts) against the embedded
 * DynamoDB: racing callers of one minute get exactly the limit between them,
 * the next minute starts a fresh budget, and keys and scopes do not share
 * one. Each test uses its own scope, and a `now` an hour ahead, so the row's
 * TTL is in the future and the minute cannot roll over mid-test.
 */
import { randomUUID } from 'node:crypto';
import { takeRateSlot } from '../../lib/db/rate-window';
import { getRow } from '../support/aws';

/** A minute boundary an hour from now (epoch seconds), taken once per test so it cannot move under it. */
const minuteAhead = () => Math.floor(Date.now() / 60_000) * 60 + 3600;
const at = (minuteStart: number, seconds: number) => new Date((minuteStart + seconds) * 1000);

const newScope = () => `it-${randomUUID().slice(0, 8)}`;

describe('takeRateSlot', () => {
  it('allows exactly the limit of 30 racing calls in one window, and tells the rest when the window ends', async () => {
    const scope = newScope();
    const windowStart = minuteAhead();
    const now = at(windowStart, 15);
    const slots = await Promise.all(
      Array.from({ length: 30 }, () => takeRateSlot({ scope, key: '203.0.113.7', limitPerMinute: 10, now })),
    );

    expect(slots.filter((s) => s.allowed)).toHaveLength(10);
    const refused = slots.filter((s) => !s.allowed);
    expect(refused).toHaveLength(20);
    expect(refused.every((s) => s.retryAfterSeconds === 45)).toBe(true);

    const row = await getRow(`RATE#${scope}#203.0.113.7`, `WINDOW#${windowStart}`);
    // Refused calls wrote nothing; the row goes by TTL a minute after its window.
    expect(row).toMatchObject({ hits: 10, expires_at: windowStart + 120, entity: 'RateWindow' });
  });

  it('allows again in the next window', async () => {
    const scope = newScope();
    const first = minuteAhead();
    const take = (secondsIntoFirstMinute: number) =>
      takeRateSlot({ scope, key: 'k', limitPerMinute: 2, now: at(first, secondsIntoFirstMinute) });

    expect((await take(0)).allowed).toBe(true);
    expect((await take(30)).allowed).toBe(true);
    expect(await take(59.5)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(await take(60)).toEqual({ allowed: true, retryAfterSeconds: 0 });
    expect((await take(61)).allowed).toBe(true);
    expect(await take(62)).toEqual({ allowed: false, retryAfterSeconds: 58 });
  });

  it('keeps a separate budget per key and per scope', async () => {
    const scope = newScope();
    const otherScope = newScope();
    const now = at(minuteAhead(), 5);
    const take = (s: string, key: string) => takeRateSlot({ scope: s, key, limitPerMinute: 1, now });

    expect((await take(scope, 'alice')).allowed).toBe(true);
    expect((await take(scope, 'alice')).allowed).toBe(false);
    expect((await take(scope, 'bob')).allowed).toBe(true);
    expect((await take(otherScope, 'alice')).allowed).toBe(true);
    expect((await take(scope, 'bob')).allowed).toBe(false);
  });

  it('counts a long key (stored hashed) against its own budget', async () => {
    const scope = newScope();
    const now = at(minuteAhead(), 5);
    const long = (tail: string) => `${'x'.repeat(500)}${tail}`;
    const take = (key: string) => takeRateSlot({ scope, key, limitPerMinute: 1, now });

    expect((await take(long('1'))).allowed).toBe(true);
    expect((await take(long('1'))).allowed).toBe(false);
    expect((await take(long('2'))).allowed).toBe(true);
  });

  it('writes nothing with the limit off', async () => {
    const scope = newScope();
    const windowStart = minuteAhead();
    const now = at(windowStart, 5);
    for (let i = 0; i < 3; i++) {
      expect(await takeRateSlot({ scope, key: 'k', limitPerMinute: 0, now })).toEqual({
        allowed: true,
        retryAfterSeconds: 0,
      });
    }
    expect(await getRow(`RATE#${scope}#k`, `WINDOW#${windowStart}`)).toBeNull();
  });
});
