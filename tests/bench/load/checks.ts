/**
 * What must hold once the load has stopped, each a PASS/FAIL line: the
 * queues drained, every job, export and send ended, items as the jobs
 * reported them and numbered without gaps or repeats, no 5xx but a failing
 * fake's documented 502/503, the billing ledger as the work done is billed,
 * and no team seeing another team's claims or jobs.
 */
import { GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { LedgerSpend } from '../../fakes/billing-server';
import type { Fakes } from './fakes';
import { expectStatus, getJob, TERMINAL_JOB } from './steps';
import { claimJobs, type TeamRecord } from './team';
import { routeOf, type Traffic } from './traffic';

export interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

const DRAIN_LIMIT_MS = 300_000;
const LEDGER_SETTLE_MS = 120_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until every queue of the stage holds no message, visible or in flight; the seconds it took. */
export async function drainQueues(awsEnv: Record<string, string>, prefix: string) {
  const sqs = new SQSClient({
    endpoint: awsEnv.AWS_ENDPOINT_URL_SQS,
    region: awsEnv.AWS_REGION,
    credentials: { accessKeyId: awsEnv.AWS_ACCESS_KEY_ID, secretAccessKey: awsEnv.AWS_SECRET_ACCESS_KEY },
  });
  const started = Date.now();
  let left: Record<string, number> = {};
  for (;;) {
    const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: prefix }));
    left = {};
    for (const url of QueueUrls) {
      const { Attributes = {} } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      const count =
        Number(Attributes.ApproximateNumberOfMessages ?? 0) +
        Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0);
      if (count > 0) left[url.split('/').pop() as string] = count;
    }
    const queues = QueueUrls.length;
    if (Object.keys(left).length === 0 || Date.now() - started > DRAIN_LIMIT_MS) {
      sqs.destroy();
      const seconds = (Date.now() - started) / 1000;
      const pass = Object.keys(left).length === 0;
      return {
        seconds,
        check: {
          name: 'queues drain to zero after the load',
          pass,
          detail: pass
            ? `${queues} queues of ${prefix}* empty after ${seconds.toFixed(1)} s`
            : `still holding after ${seconds.toFixed(0)} s: ${JSON.stringify(left)}`,
        },
      };
    }
    await sleep(2000);
  }
}

export interface FinalJob {
  team: string;
  job: any;
  items: any[];
  metrics: any;
}

/** Every job of every team as it ended, with its items and stage timings. */
export async function finalJobs(teams: TeamRecord[]): Promise<FinalJob[]> {
  const found: FinalJob[] = [];
  for (const team of teams) {
    for (const claimId of team.claims) for (const job of await claimJobs(team.client, claimId)) team.jobs.add(job.id);
    for (const jobId of team.jobs) {
      const job = await getJob(team.client, jobId);
      const items = job.room_id
        ? (expectStatus(await team.client.get(`/api/inventory/${jobId}`), 'inventory', 200) as any[])
        : [];
      const metrics = expectStatus(await team.client.get(`/api/jobs/${jobId}/metrics`), 'job metrics', 200);
      found.push({ team: team.key, job, items, metrics });
    }
  }
  return found;
}

/** A job's run, from its start to its end, in seconds; null while it has not both. */
export const runSeconds = (job: { started_at?: string | null; finished_at?: string | null }): number | null =>
  job.started_at && job.finished_at ? (Date.parse(job.finished_at) - Date.parse(job.started_at)) / 1000 : null;

/** A job whose run took longer than this is printed with its log: a stall explains itself there. */
const SLOW_JOB_SECONDS = 300;

/** The job logs (their engine lines: stages, units, retries, recoveries) of the slowest runs past SLOW_JOB_SECONDS. */
export async function printSlowJobLogs(jobs: FinalJob[], teams: TeamRecord[], most = 3): Promise<void> {
  const slow = jobs
    .filter(({ job }) => (runSeconds(job) ?? 0) > SLOW_JOB_SECONDS)
    .sort((a, b) => (runSeconds(b.job) ?? 0) - (runSeconds(a.job) ?? 0))
    .slice(0, most);
  for (const found of slow) {
    const team = teams.find((t) => t.key === found.team);
    if (!team) continue;
    const log = expectStatus(await team.client.get(`/api/jobs/${found.job.id}/logs`), 'job logs', 200);
    process.stdout.write(
      `\nSlow job ${found.job.id} (${found.job.source_type}, ${runSeconds(found.job)?.toFixed(0)} s, started ${found.job.started_at}):\n`,
    );
    for (const line of log.lines ?? []) process.stdout.write(`  ${line.at} ${line.level} ${line.message}\n`);
  }
}

export function terminalCheck(jobs: FinalJob[], teams: TeamRecord[]): Check {
  const open = jobs.filter((j) => !TERMINAL_JOB.includes(j.job.status)).map((j) => `job ${j.job.id} ${j.job.status}`);
  const exports = teams.flatMap((t) => t.exports);
  const sends = teams.flatMap((t) => t.sends);
  open.push(...exports.filter((e) => !['ready', 'failed'].includes(e.status)).map((e) => `export ${e.id} ${e.status}`));
  open.push(...sends.filter((s) => !['sent', 'complete', 'failed'].includes(s.state)).map((s) => `send ${s.claimId}`));
  const errors = jobs.filter((j) => j.job.status === 'error').length;
  const failedExports = exports.filter((e) => e.status === 'failed').length;
  const failedSends = sends.filter((s) => s.state === 'failed').length;
  return {
    name: 'every job, send and export reached a terminal state',
    pass: open.length === 0,
    detail:
      open.length === 0
        ? `${jobs.length} jobs (${errors} in error), ${exports.length} exports (${failedExports} failed), ${sends.length} sends (${failedSends} failed)`
        : open.slice(0, 10).join('; '),
  };
}

export function itemChecks(jobs: FinalJob[]): Check[] {
  const miscounted = jobs
    .filter((j) => j.job.status === 'complete' && j.job.room_id && j.items.length !== j.job.items_found)
    .map((j) => `job ${j.job.id} (${j.job.source_type}) reported ${j.job.items_found}, holds ${j.items.length}`);
  const byClaim = new Map<string, number[]>();
  for (const j of jobs)
    for (const item of j.items) byClaim.set(j.job.claim_id, [...(byClaim.get(j.job.claim_id) ?? []), item.item_number]);
  const misnumbered: string[] = [];
  for (const [claimId, numbers] of byClaim) {
    const sorted = [...numbers].sort((a, b) => a - b);
    if (sorted.some((n, i) => n !== i + 1)) misnumbered.push(`claim ${claimId}: ${sorted.join(',')}`);
  }
  const items = jobs.reduce((n, j) => n + j.items.length, 0);
  return [
    {
      name: "each job's items equal what it reported",
      pass: miscounted.length === 0,
      detail: miscounted.length === 0 ? `${items} items in ${jobs.length} jobs` : miscounted.slice(0, 10).join('; '),
    },
    {
      name: 'item numbers of each claim run 1..N without gaps or repeats',
      pass: misnumbered.length === 0,
      detail: misnumbered.length === 0 ? `${byClaim.size} claims` : misnumbered.slice(0, 5).join('; '),
    },
  ];
}

/**
 * A 5xx is allowed only where the route documents it and it is 502 or 503: the answer of a route whose
 * external system (a send's platform) failed. Anything else is the service failing.
 */
export function serverErrorCheck(traffic: Traffic): Check {
  const counts = new Map<string, { allowed: boolean; n: number }>();
  for (const x of traffic.exchanges) {
    if (x.status < 500) continue;
    const [method, template] = x.route.split(' ');
    const route = routeOf(method, template.replace(/\{[^}]+\}/g, 'x'));
    const allowed = (x.status === 502 || x.status === 503) && Boolean(route?.errors?.includes(x.status));
    const key = `${x.status} ${x.route}`;
    counts.set(key, { allowed, n: (counts.get(key)?.n ?? 0) + 1 });
  }
  for (const f of traffic.failures) counts.set(`no answer ${f.route}`, { allowed: false, n: 1 });
  const listed = [...counts].map(([k, v]) => `${v.n}× ${k}${v.allowed ? ' (documented, a fake failed)' : ''}`);
  return {
    name: 'no 5xx but a failing fake’s documented 502/503',
    pass: [...counts.values()].every((v) => v.allowed),
    detail: listed.length ? listed.join('; ') : 'none',
  };
}

const net = (spends: LedgerSpend[]) => spends.reduce((n, s) => n + s.amount - s.refunded, 0);

/** Where the team's ledger differs from what its jobs and sends are billed; empty when it matches. */
function ledgerDifferences(fakes: Fakes, team: TeamRecord, jobs: FinalJob[]): string[] {
  const spends = fakes.billing.spends(team.key);
  const problems: string[] = [];
  const explained = new Set<string>();
  for (const { job } of jobs.filter((j) => j.team === team.key)) {
    const own = spends.filter((s) => s.reference.startsWith(`job:${job.id}:`));
    for (const s of own) explained.add(s.reference);
    const billed = job.status === 'complete' ? job.billed_cost_usd : 0;
    if (net(own) !== billed) problems.push(`job ${job.id} (${job.status}) billed ${billed}, ledger ${net(own)}`);
  }
  for (const claimId of team.claims) {
    for (const [prefix, platform, ok] of [
      [`ce-send:${claimId}`, 'estimation', 'sent'],
      [`as-send:${claimId}:`, 'claims-platform', 'complete'],
    ] as const) {
      const own = spends.filter((s) => s.reference.startsWith(prefix));
      for (const s of own) explained.add(s.reference);
      const billed = team.sends
        .filter((s) => s.claimId === claimId && s.platform === platform && s.state === ok)
        .reduce((n, s) => n + s.credits, 0);
      if (net(own) !== billed) problems.push(`${platform} send of ${claimId} billed ${billed}, ledger ${net(own)}`);
    }
  }
  for (const s of spends.filter((s) => !explained.has(s.reference)))
    problems.push(`unexplained spend ${s.reference} (${s.amount - s.refunded})`);
  return problems;
}

/** The ledger against the work done; owed refunds may still be settling (the billing sweep), so it is read until it matches. */
export async function ledgerCheck(fakes: Fakes, teams: TeamRecord[], jobs: FinalJob[]): Promise<Check> {
  const deadline = Date.now() + LEDGER_SETTLE_MS;
  let problems: string[] = [];
  for (;;) {
    problems = teams.flatMap((t) => ledgerDifferences(fakes, t, jobs).map((p) => `team ${t.key}: ${p}`));
    if (problems.length === 0 || Date.now() > deadline) break;
    await sleep(3000);
  }
  const spent = teams.reduce((n, t) => n + net(fakes.billing.spends(t.key)), 0);
  return {
    name: 'the billing ledger equals what the work done is billed',
    pass: problems.length === 0,
    detail:
      problems.length === 0 ? `${spent} credits net over ${teams.length} teams` : problems.slice(0, 10).join('; '),
  };
}

export function crossTeamCheck(traffic: Traffic, teams: TeamRecord[], jobs: FinalJob[]): Check {
  const owner = new Map<string, string>();
  for (const t of teams) for (const c of t.claims) owner.set(c.toLowerCase(), t.key);
  for (const j of jobs) owner.set(String(j.job.id).toLowerCase(), j.team);
  const crossings: string[] = [];
  for (const [team, seen] of traffic.seenIds)
    for (const id of seen) {
      const of = owner.get(id);
      if (of && of !== team) crossings.push(`team ${team} saw ${id} of team ${of}`);
    }
  return {
    name: "no team sees another team's claim or job ids",
    pass: crossings.length === 0,
    detail:
      crossings.length === 0
        ? `${owner.size} ids owned, answers of ${traffic.seenIds.size} teams read`
        : crossings.slice(0, 5).join('; '),
  };
}
