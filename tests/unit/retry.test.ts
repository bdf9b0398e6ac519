/**
 * The one retry policy (lib/retry.ts): attempt counts, which failures are
 * retried, the error the caller gets, and the pauses asked of the timer
 * (the setTimeout delays are checked, never the wall clock).
 */
import { withRetry, type RetryPolicy } from '../../lib/retry';

/** Fails with the given errors in turn, then answers 'done'. */
function failing(...errors: unknown[]) {
  const calls: number[] = [];
  const work = async (attempt: number) => {
    calls.push(attempt);
    if (calls.length <= errors.length) throw errors[calls.length - 1];
    return 'done';
  };
  return { work, calls };
}

/** The delays handed to setTimeout while `run` runs (the timers still fire). */
async function pausesOf(run: () => Promise<unknown>): Promise<number[]> {
  const spy = jest.spyOn(global, 'setTimeout');
  try {
    await run().catch(() => undefined);
    return spy.mock.calls.map((call) => Number(call[1]));
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => jest.restoreAllMocks());

describe('withRetry', () => {
  it('retries until the work succeeds and numbers the attempts', async () => {
    const { work, calls } = failing(new Error('a'), new Error('b'));
    await expect(withRetry(work, { attempts: 3, backoffMs: 0 })).resolves.toBe('done');
    expect(calls).toEqual([1, 2, 3]);
  });

  it('makes exactly `attempts` attempts and rethrows the last error itself', async () => {
    const last = new Error('third');
    const { work, calls } = failing(new Error('first'), new Error('second'), last, new Error('never'));
    await expect(withRetry(work, { attempts: 3, backoffMs: 0 })).rejects.toBe(last);
    expect(calls).toHaveLength(3);
  });

  it('treats attempts below 1 as one attempt', async () => {
    const { work, calls } = failing(new Error('x'));
    await expect(withRetry(work, { attempts: 0, backoffMs: 0 })).rejects.toThrow('x');
    expect(calls).toHaveLength(1);
  });

  it('fails at once, with the original error, when the failure is not retryable', async () => {
    class Permanent extends Error {}
    const permanent = new Permanent('no');
    const { work, calls } = failing(new Error('transient'), permanent);
    const onRetry = jest.fn();
    await expect(
      withRetry(work, { attempts: 5, backoffMs: 0, retryable: (e) => !(e instanceof Permanent), onRetry }),
    ).rejects.toBe(permanent);
    expect(calls).toHaveLength(2);
    expect(onRetry).toHaveBeenCalledTimes(1);
  });

  it('retries a TypeError and a thrown non-Error when the predicate says so, and hands them back unchanged', async () => {
    const typeError = new TypeError('cannot read x');
    const { work, calls } = failing(typeError, 'plain string');
    await expect(withRetry(work, { attempts: 3, backoffMs: 0 })).resolves.toBe('done');
    expect(calls).toHaveLength(3);

    const thrown = { code: 'ConditionalCheckFailed' };
    await expect(withRetry(failing(thrown, thrown).work, { attempts: 2, backoffMs: 0 })).rejects.toBe(thrown);
  });

  it('tells onRetry about each retried failure, not the last one', async () => {
    const errors = [new Error('1'), new Error('2'), new Error('3')];
    const seen: [string, number][] = [];
    await withRetry(failing(...errors).work, {
      attempts: 3,
      backoffMs: 0,
      onRetry: (e, n) => void seen.push([(e as Error).message, n]),
    }).catch(() => undefined);
    expect(seen).toEqual([
      ['1', 1],
      ['2', 2],
    ]);
  });

  it('doubles the pause per retry from backoffMs, up to maxBackoffMs', async () => {
    const policy: RetryPolicy = { attempts: 4, backoffMs: 10 };
    expect(await pausesOf(() => withRetry(failing(1, 2, 3, 4).work, policy))).toEqual([10, 20, 40]);
    expect(await pausesOf(() => withRetry(failing(1, 2, 3, 4).work, { ...policy, maxBackoffMs: 15 }))).toEqual([
      10, 15, 15,
    ]);
    expect(await pausesOf(() => withRetry(failing(1, 2, 3, 4).work, { ...policy, factor: 1 }))).toEqual([10, 10, 10]);
    expect(await pausesOf(() => withRetry(failing(1, 2, 3).work, { attempts: 4, backoffMs: 0 }))).toEqual([]);
  });

  it('with jitter draws each pause between half and all of its nominal value', async () => {
    const policy: RetryPolicy = { attempts: 3, backoffMs: 40, jitter: true };
    jest.spyOn(Math, 'random').mockReturnValue(0);
    expect(await pausesOf(() => withRetry(failing(1, 2, 3).work, policy))).toEqual([20, 40]);
    jest.spyOn(Math, 'random').mockReturnValue(0.9999);
    expect(await pausesOf(() => withRetry(failing(1, 2, 3).work, policy))).toEqual([40, 80]);
  });

  it('never pauses less than a failure asks for (Retry-After), and no more than its backoff when it asks for less', async () => {
    class RateLimited extends Error {
      constructor(readonly retryAfterMs: number) {
        super('429');
      }
    }
    const policy: RetryPolicy = {
      attempts: 3,
      backoffMs: 10,
      jitter: true,
      minPauseMs: (e) => (e instanceof RateLimited ? e.retryAfterMs : null),
    };
    jest.spyOn(Math, 'random').mockReturnValue(0);
    // First retry: least backoff 5 ms, 30 asked: 25 more. Second: 10 ms of backoff already covers the 3 asked.
    const pauses = await pausesOf(() => withRetry(failing(new RateLimited(30), new RateLimited(3)).work, policy));
    expect(pauses).toEqual([25, 5, 10]);
    expect(pauses[0] + pauses[1]).toBeGreaterThanOrEqual(30);
  });
});
