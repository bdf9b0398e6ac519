/**
 * Benchmark (h): the admin overview and job lists as data grows. 200 teams
 * (a user and 5 claims each, created 400 days ago), 20,000 media jobs spread
 * over the last 400 days (complete or failed, with credits, items and AI
 * spend in the usage counters) and 200,000 item rows are written to the
 * table; then GET /api/admin/overview is called 20 times per range over HTTP
 * as an admin, and GET /api/admin/logs and /api/admin/api-requests 20 times
 * each (the first page, the page after the first page's cursor, the page at
 * offset 500 and a team's first page, each with its exact total), and the
 * median latency of each is printed.
 *
 *   pass: every median is < 300 ms on the embedded stack (the overview's bound)
 *
 * Seeding is printed, not measured. Run through `npm run bench -- admin`
 * (tests/bench/run.js).
 */
import { randomUUID } from 'node:crypto';
import pLimit from 'p-limit';
import { putNewClaim } from '../../lib/claims/store';
import { putRows } from '../../lib/db/batch';
import { itemRowOf } from '../../lib/inventory/item-store';
import type { InventoryItem } from '../../lib/inventory/item-record-rules';
import { buildItem } from '../../lib/inventory/item-rules';
import { statsKeys } from '../../lib/stats/keys';
import { type Job, newJobRecord } from '../../lib/jobs/job-record-rules';
import { putCountedJobRows } from '../support/job-rows';
import { bucketsAt, OVERVIEW_RANGES, type UsageEvent, usageIncrements } from '../../lib/stats/rules';
import { createTeam } from '../../lib/teams/store';
import { createUser } from '../../lib/users/store';
import { signLoginToken } from '../support/tokens';
import { Api } from './api';
import { emitResult, median, ms, printTable, quantile, requiredEnv, runBenchmark, seconds } from './report';

const NAME = 'admin';
const TEAMS = 200;
const CLAIMS_PER_TEAM = 5;
const JOBS = 20_000;
const ITEMS = 200_000;
const DAYS = 400;
/** Every tenth job failed (no items). */
const COMPLETED = JOBS - JOBS / 10;
const CALLS = 20;
const BOUND_MS = 300;
const MEDIA = ['video', 'photo', 'audio'] as const;

function item(jobId: string, teamId: string, claimId: string, number: number, at: string): InventoryItem {
  return buildItem(
    { name: `Item ${number}`, quantity: 1, condition: 'good', estimated_price: 25 },
    {
      id: randomUUID(),
      job: { id: jobId, room_id: `room-${jobId}`, claim_id: claimId, team_id: teamId },
      roomName: 'Den',
      itemNumber: number,
      now: new Date(at),
    },
    { confidence: 0.9, evidence: null, reviewed: false, created_pass: 1, source_group_index: number, photo_path: null },
  );
}

/** Adds one event's increments to the in-memory counter rows of every bucket `at` falls in. */
function countInto(rows: Map<string, Record<string, number>>, teamId: string, at: Date, event: UsageEvent): void {
  for (const bucket of bucketsAt(at)) {
    const key = `${bucket}|${teamId}`;
    const row = rows.get(key) ?? {};
    for (const [name, value] of Object.entries(usageIncrements(event))) row[name] = (row[name] ?? 0) + value;
    rows.set(key, row);
  }
}

/**
 * Rows are written in batches (BatchWriteItem), not one event at a time: the
 * counter rows are added up in memory with the service's own rules
 * (lib/stats/rules.ts), so they hold what the service's one-by-one ADDs would.
 */
async function seed(): Promise<string> {
  const limit = pLimit(16);
  let t = performance.now();
  // The teams are as old as the oldest job: the job lists walk back through the days to the oldest team's.
  const since = new Date(Date.now() - DAYS * 24 * 3600 * 1000);
  const teams = await Promise.all(
    Array.from({ length: TEAMS }, (_, i) =>
      limit(async () => {
        const team = await createTeam(
          {
            external_id: 5_000_000 + i,
            name: `Bench team ${i}`,
            team_token: null,
            estimation_platform_key: null,
          },
          since,
        );
        const user = await createUser({
          external_id: `bench-${i}`,
          name: `Bench user ${i}`,
          email: null,
          team_id: team.id,
        });
        return { team, user, claimIds: Array.from({ length: CLAIMS_PER_TEAM }, () => randomUUID()) };
      }),
    ),
  );
  process.stdout.write(`  ${TEAMS} teams and users in ${seconds((performance.now() - t) / 1000)}\n`);

  t = performance.now();
  const now = Date.now();
  const jobs: Job[] = [];
  const itemRows: Record<string, unknown>[] = [];
  const failureRows: Record<string, unknown>[] = [];
  const usage = new Map<string, Record<string, number>>();
  for (let j = 0; j < JOBS; j++) {
    const { team, user, claimIds } = teams[j % TEAMS];
    const claimId = claimIds[j % CLAIMS_PER_TEAM];
    const media = MEDIA[j % 3];
    const created = new Date(now - ((j * 7919) % (DAYS * 24)) * 3600 * 1000);
    const finished = new Date(created.getTime() + 120_000);
    const failed = j % 10 === 0;
    // The completed jobs share the items: 11 or 12 each.
    const completedBefore = j - Math.ceil(j / 10);
    const itemCount = failed
      ? 0
      : Math.floor(((completedBefore + 1) * ITEMS) / COMPLETED) - Math.floor((completedBefore * ITEMS) / COMPLETED);
    const job = newJobRecord(
      {
        room: { id: `room-${j}`, claim_id: claimId, team_id: team.id },
        userId: user.id,
        sourceType: media,
        status: 'complete',
      },
      created,
    );
    Object.assign(job, {
      status: failed ? 'error' : 'complete',
      error_message: failed ? 'Every AI request of the run failed' : null,
      started_at: created.toISOString(),
      finished_at: finished.toISOString(),
      items_found: itemCount,
      billed_cost_usd: failed ? 0 : 3,
      ai_api_calls: 4,
      ai_cost_usd: 0.02,
    });
    jobs.push(job);
    countInto(usage, team.id, created, { media, counts: { jobs: 1, ai_calls: 4, ai_tokens: 4000, ai_cost_usd: 0.02 } });
    if (failed) {
      countInto(usage, team.id, finished, { media, counts: { failed: 1 } });
      failureRows.push({
        ...statsKeys.failure(finished.toISOString(), job.id),
        entity: 'Failure',
        job_id: job.id,
        team_id: team.id,
        source_type: media,
        error_message: job.error_message,
        failed_at: finished.toISOString(),
      });
      continue;
    }
    countInto(usage, team.id, finished, {
      media,
      counts: { completed: 1, credits: 3, items: itemCount, processing_seconds: 120 },
    });
    for (let n = 1; n <= itemCount; n++)
      itemRows.push(itemRowOf(item(job.id, team.id, claimId, n, finished.toISOString())));
  }
  const usageRows = [...usage.entries()].map(([key, counters]) => {
    const [bucket, teamId] = key.split('|');
    return { ...statsKeys.usage(bucket, teamId), entity: 'Usage', team_id: teamId, bucket, ...counters };
  });
  const chunksOf = <T>(rows: T[]) =>
    Array.from({ length: Math.ceil(rows.length / 500) }, (_, i) => rows.slice(i * 500, i * 500 + 500));
  const write = async (rows: Record<string, unknown>[]) => {
    await Promise.all(chunksOf(rows).map((chunk) => limit(() => putRows(chunk))));
  };
  // The jobs as the job store writes them, counted in the job totals the lists' `total` reads.
  await Promise.all(chunksOf(jobs).map((chunk) => limit(() => putCountedJobRows(chunk))));
  await write([...usageRows, ...failureRows]);
  process.stdout.write(
    `  ${JOBS} jobs over ${DAYS} days, ${usageRows.length} counter rows, ${failureRows.length} failures in ${seconds((performance.now() - t) / 1000)}\n`,
  );
  // Claims through the store, so they are counted as the service counts them (after the counter rows).
  t = performance.now();
  await Promise.all(
    teams.flatMap(({ team, user, claimIds }) =>
      claimIds.map((id, c) =>
        limit(() => putNewClaim(team.id, user.id, { claim_number: `BENCH-${team.name}-${c}` }, { id })),
      ),
    ),
  );
  process.stdout.write(`  ${TEAMS * CLAIMS_PER_TEAM} claims in ${seconds((performance.now() - t) / 1000)}\n`);
  t = performance.now();
  await write(itemRows);
  process.stdout.write(`  ${itemRows.length} items in ${seconds((performance.now() - t) / 1000)}\n`);
  return teams[0].team.id;
}

/** Median and p90 of CALLS calls of one GET (after a warming call); `check` sees each answer. */
async function measure(admin: Api, path: string, check: (body: any) => void) {
  check(await admin.call('GET', path));
  const latencies: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    const body = await admin.call('GET', path);
    latencies.push(performance.now() - started);
    check(body);
  }
  return { median: median(latencies), p90: quantile(latencies, 0.9) };
}

async function main(): Promise<void> {
  const base = requiredEnv('BENCH_SERVICE_URL');
  const secret = requiredEnv('CLAIMS_PLATFORM_JWT_SECRET');
  process.stdout.write('Seeding (not measured)\n');
  const teamId = await seed();

  // User 7 is on the default ADMIN_EXTERNAL_USER_IDS.
  const admin = new Api(
    base,
    await signLoginToken({ user_id: 7, user_name: 'Bench admin', current_team_id: 4_999_999 }, { secret }),
  );
  const rows: [string, string][] = [];
  const medians: Record<string, number> = {};
  for (const range of OVERVIEW_RANGES) {
    // Warms the function; for the year range, also makes this month's rollup of the settled months.
    const warming = performance.now();
    await admin.call('GET', `/api/admin/overview?range=${range}`);
    const firstCall = performance.now() - warming;
    const latencies: number[] = [];
    let jobs = 0;
    for (let i = 0; i < CALLS; i++) {
      const started = performance.now();
      const body = await admin.call('GET', `/api/admin/overview?range=${range}`);
      latencies.push(performance.now() - started);
      jobs = body.counts.jobs;
    }
    medians[range] = median(latencies);
    rows.push([
      range,
      `median ${ms(medians[range])}, p90 ${ms(quantile(latencies, 0.9))} (bound ${BOUND_MS} ms; ${jobs} jobs in range); first call ${ms(firstCall)}`,
    ]);
  }
  printTable(`GET /api/admin/overview, ${CALLS} calls per range`, rows);

  // The job lists: a full page each time (the route's default size: 50 logs, 10 api-requests), read a day (or a
  // few) at a time, never the whole index, and the exact total beside it (every team's: the job totals kept as
  // jobs are written; a team's: DynamoDB counts the team's jobs index; every seeded job made AI calls).
  const full = (body: any) => {
    if (body.jobs.length !== body.limit || !body.next_cursor || body.total !== JOBS)
      throw new Error(`expected a full page of ${JOBS}: ${JSON.stringify(body).slice(0, 500)}`);
  };
  const team = (body: any) => {
    if (body.jobs.length !== body.limit || body.total !== JOBS / TEAMS)
      throw new Error(`expected a team's page of ${JOBS / TEAMS}: ${JSON.stringify(body).slice(0, 500)}`);
  };
  const lists: [string, string, (body: any) => void][] = [];
  for (const route of ['logs', 'api-requests']) {
    const first = await admin.call('GET', `/api/admin/${route}`);
    lists.push(
      [`${route} first page`, `/api/admin/${route}`, full],
      [`${route} second page`, `/api/admin/${route}?cursor=${encodeURIComponent(first.next_cursor)}`, full],
      [`${route} offset 500`, `/api/admin/${route}?offset=500`, full],
      [`${route} one team`, `/api/admin/${route}?team_id=${teamId}`, team],
    );
  }
  const listRows: [string, string][] = [];
  for (const [label, path, check] of lists) {
    const figures = await measure(admin, path, check);
    medians[label] = figures.median;
    listRows.push([label, `median ${ms(figures.median)}, p90 ${ms(figures.p90)} (bound ${BOUND_MS} ms)`]);
  }
  printTable(`GET /api/admin/logs and /api/admin/api-requests, ${CALLS} calls each`, listRows);
  const pass = Object.values(medians).every((value) => value < BOUND_MS);
  emitResult({
    name: NAME,
    pass,
    summary: Object.fromEntries(Object.entries(medians).map(([label, value]) => [label, ms(value)])),
  });
}

runBenchmark(NAME, main);
