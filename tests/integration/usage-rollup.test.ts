/**
 * The admin overview's year range over the embedded DynamoDB, on a table of
 * its own: the 10 settled months are read as one rollup row per team, made
 * from the month rows the first time and read as it is after that.
 *
 * Covered: the year's figures equal the sum of its twelve months; the rollup
 * is written once (a month row changed afterwards does not change it, and
 * two first reads at once write the same rows); the months still being added
 * to are read as they are.
 */
import { randomUUID } from 'node:crypto';
import { resetSettings } from '../../lib/config';
import { monthBucket, rangeBuckets, sumUsage } from '../../lib/stats/rules';
import { addUsageRows, readRollupRows, readUsageRows } from '../../lib/stats/store';
import { useOwnStage } from '../support/stage';

const now = new Date('2026-11-28T05:00:00Z');
const teams = [randomUUID(), randomUUID(), randomUUID()];
/** The first day of the month `back` months before now's. */
const monthsBack = (back: number) => new Date(Date.UTC(2026, 10 - back, 1, 12));

beforeAll(async () => {
  await useOwnStage('usage-rollup');
  resetSettings();
  // Each team: n jobs and 2n credits in the month n months back, for 14 months (2 beyond the year).
  for (let back = 0; back < 14; back++)
    for (const [t, team] of teams.entries())
      await addUsageRows(team, monthsBack(back), { jobs: back + t, credits: 2 * (back + t), jobs__video: 1 });
}, 60_000);

afterAll(() => resetSettings());

const yearFigures = async () => {
  const { buckets, rollup } = rangeBuckets('year', now);
  return sumUsage([...(await readUsageRows(buckets)), ...(await readRollupRows(rollup!, now))]);
};

describe('the year range', () => {
  it('sums its twelve months, the settled ten read as one row per team, made once', async () => {
    const twelve = Array.from({ length: 12 }, (_, back) => monthBucket(monthsBack(back)));
    const expected = sumUsage(await readUsageRows(twelve));
    // 3 teams × (0 + … + 11) + 12 × (0 + 1 + 2) jobs.
    expect(expected.jobs).toBe(3 * 66 + 12 * 3);
    const { rollup } = rangeBuckets('year', now);
    const [first, second] = await Promise.all([readRollupRows(rollup!, now), readRollupRows(rollup!, now)]);
    expect(first).toHaveLength(3);
    expect(sumUsage(second)).toEqual(sumUsage(first));
    expect(await yearFigures()).toEqual(expected);
    // Read as it is now: a settled month added to afterwards (which the service never does) does not change it…
    await addUsageRows(teams[0], monthsBack(5), { jobs: 1000 });
    expect((await yearFigures()).jobs).toBe(expected.jobs);
    // …while this month and the last are read as they are.
    await addUsageRows(teams[1], monthsBack(1), { jobs: 7 });
    await addUsageRows(teams[2], now, { jobs: 5 });
    expect((await yearFigures()).jobs).toBe(expected.jobs + 12);
  });
});
