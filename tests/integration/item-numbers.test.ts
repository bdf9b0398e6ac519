/**
 * Item numbers under contention (lib/inventory/item-store.ts allocateItemNumbers,
 * on the shared retry policy): batches of one claim racing for numbers each
 * get their own consecutive range, a repeated batch gets its first range
 * back, and a claim that is gone fails instead of retrying.
 */
import { randomUUID } from 'node:crypto';
import { putNewClaim } from '../../lib/claims/store';
import { allocateItemNumbers } from '../../lib/inventory/item-store';
import { getRow } from '../support/aws';

describe('allocateItemNumbers', () => {
  it('gives racing batches of one claim disjoint consecutive ranges after the claim maximum', async () => {
    const claim = await putNewClaim(randomUUID(), randomUUID(), { claim_number: 'IT-numbers' });
    const jobId = randomUUID();
    const sizes = [3, 1, 4, 1, 5, 9, 2, 6];
    const ranges = await Promise.all(
      sizes.map((count, i) => allocateItemNumbers(claim.id, jobId, `pass1#${i}`, count)),
    );

    expect(ranges.map((r) => r.count)).toEqual(sizes);
    const numbers = ranges.flatMap((r) => Array.from({ length: r.count }, (_, k) => r.first + k)).sort((a, b) => a - b);
    const total = sizes.reduce((a, b) => a + b, 0);
    expect(numbers).toEqual(Array.from({ length: total }, (_, k) => k + 1));
    expect((await getRow(`CLAIM#${claim.id}`, 'CLAIM'))?.item_number_max).toBe(total);

    // The same batch again: its first range, nothing new taken.
    await expect(allocateItemNumbers(claim.id, jobId, 'pass1#5', 9)).resolves.toEqual(ranges[5]);
    expect((await getRow(`CLAIM#${claim.id}`, 'CLAIM'))?.item_number_max).toBe(total);
  });

  it('fails at once for a claim that does not exist', async () => {
    await expect(allocateItemNumbers(randomUUID(), randomUUID(), 'pass1#0', 2)).rejects.toThrow(/no longer exists/);
  });
});
