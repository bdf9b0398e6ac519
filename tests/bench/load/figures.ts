/**
 * The load benchmark's figures, each beside its target where it has one:
 * throughput, API latency per route class, the longest wait of a job's stage
 * in the queue, and per stack process its memory, descriptors and CPU.
 */
import { bytes, ms, printTable, quantile } from '../report';
import { type Check, type FinalJob, runSeconds } from './checks';
import { type Sample, stackTotal } from './proc-sampler';
import type { RouteClass, Traffic } from './traffic';

const READ_P95_TARGET_MS = 500;
const STACK_RSS_TARGET_BYTES = 4 * 1024 ** 3;
/** Soak: a process's resident memory once idle after the load at most this much above its warm-up figure. */
const SOAK_GROWTH_LIMIT = 0.1;
/**
 * The soak's figures are medians over windows of the full load, each this share of it long: the one right after the
 * warm-up, and the last one before the teams stop starting rounds. One sample held whatever its instant held (a
 * video's frames, a list's pages): the workers' process read 877 MiB right after a drain and 637 MiB two minutes
 * later. What a process retains is read once the load is over and the stack idle: it is checked against the
 * warm-up window. The last window under load is printed beside it with the jobs under way in each window: on two
 * cores the backlog grows through the load, and each job under way holds its working set.
 */
const SOAK_WINDOW_SHARE = 0.2;

export interface Window {
  loadStart: number;
  /** WARM_UP_SHARE into the load: where the soak's first window and the latency target start. */
  warmUpAt: number;
  /** When the teams stopped starting new rounds (BENCH_LOAD_MINUTES): the end of the soak's last full-load window. */
  roundsStopAt: number;
  /** When the last team's last round ended. */
  loadEnd: number;
}

export function throughput(traffic: Traffic, jobs: FinalJob[], window: Window): Check[] {
  const minutes = (window.loadEnd - window.loadStart) / 60_000;
  const inWindow = traffic.exchanges.filter((x) => x.at >= window.loadStart && x.at <= window.loadEnd).length;
  const ended = jobs.filter((j) => j.job.finished_at && Date.parse(j.job.finished_at) <= window.loadEnd);
  const items = jobs.reduce((n, j) => n + j.items.length, 0);
  printTable('Throughput (during the load)', [
    ['load', `${minutes.toFixed(2)} min`],
    ['jobs ended per minute', (ended.length / minutes).toFixed(1)],
    ['items per minute', `${(items / minutes).toFixed(1)} (${items} items in all, the drain included)`],
    ['API requests per minute', `${(inWindow / minutes).toFixed(0)} (${traffic.exchanges.length} in all)`],
  ]);
  return [];
}

const spread = (times: number[]) =>
  times.length
    ? `p50 ${ms(quantile(times, 0.5))}  p95 ${ms(quantile(times, 0.95))}  p99 ${ms(quantile(times, 0.99))}  (${times.length})`
    : 'none';

/**
 * p50/p95/p99 per route class, over the whole load and after its warm-up (the first call of each function
 * instance loads its bundle, as a Lambda cold start does). The read target is held after the warm-up.
 */
export function latency(traffic: Traffic, window: Window): Check[] {
  const classes: RouteClass[] = ['read', 'write', 'presign', 'poll'];
  const rows: [string, string][] = [];
  const during = (x: { at: number }, from: number) => x.at >= from && x.at <= window.loadEnd;
  const timesOf = (cls: RouteClass, from: number) =>
    traffic.exchanges.filter((x) => x.cls === cls && during(x, from)).map((x) => x.ms);
  for (const cls of classes) {
    rows.push([`${cls}, whole load`, spread(timesOf(cls, window.loadStart))]);
    rows.push([`${cls}, after warm-up`, spread(timesOf(cls, window.warmUpAt))]);
  }
  const reads = traffic.exchanges.filter((x) => x.cls === 'read' && during(x, window.warmUpAt));
  // A route's first call starts its function's first instance (a cold start): shown apart, still counted in the target.
  const firstCalls = new Set<object>();
  const routesSeen = new Set<string>();
  for (const x of traffic.exchanges)
    if (!routesSeen.has(x.route)) {
      routesSeen.add(x.route);
      firstCalls.add(x);
    }
  rows.push([
    "read, after warm-up, no route's first call",
    spread(reads.filter((x) => !firstCalls.has(x)).map((x) => x.ms)),
  ]);
  const byRoute = new Map<string, number[]>();
  for (const x of reads) byRoute.set(x.route, [...(byRoute.get(x.route) ?? []), x.ms]);
  const slowest = [...byRoute]
    .map(([route, times]) => ({ route, p95: quantile(times, 0.95), n: times.length }))
    .sort((a, b) => b.p95 - a.p95)
    .slice(0, 3);
  for (const r of slowest) rows.push([`  slow read: ${r.route}`, `p95 ${ms(r.p95)} (${r.n})`]);
  printTable('API latency (reads: GET; polls: job, export, import and send status; presign: upload slots)', rows);
  const readP95 = quantile(
    reads.map((x) => x.ms),
    0.95,
  );
  return [
    {
      name: `read p95 < ${READ_P95_TARGET_MS} ms while the pipelines run (after warm-up)`,
      pass: readP95 < READ_P95_TARGET_MS,
      detail: ms(readP95),
    },
  ];
}

/**
 * The longest a stage of a job waited for a worker: from the end of the stage before it (or the run's start, for
 * the first) to its own start, from the job's stage timings.
 */
export function queueWait(jobs: FinalJob[]): Check[] {
  let longest = { seconds: 0, label: 'none' };
  for (const { job, metrics } of jobs) {
    const timings = Object.entries((metrics?.stage_timings ?? {}) as Record<string, any>)
      .filter(([, t]) => t?.started_at)
      .map(([stage, t]) => ({
        stage,
        start: Date.parse(t.started_at),
        end: t.finished_at ? Date.parse(t.finished_at) : null,
      }));
    const runStart = job.started_at ? Date.parse(job.started_at) : null;
    for (const t of timings) {
      const before = timings.filter((o) => o.end !== null && (o.end as number) <= t.start).map((o) => o.end as number);
      const from = Math.max(...before, runStart ?? -Infinity);
      if (!Number.isFinite(from)) continue;
      const seconds = (t.start - from) / 1000;
      if (seconds > longest.seconds)
        longest = { seconds, label: `job ${job.id} (${job.source_type}) stage ${t.stage}` };
    }
  }
  printTable('Queue wait (a stage, from the end of the one before it or the run start, to its own start)', [
    ['longest', `${longest.seconds.toFixed(2)} s  ${longest.label}`],
  ]);
  printTable('Job time (its run start to its end), by kind of media', jobTimes(jobs));
  return [];
}

/** p50/p95/max of a job's run, per source type: what a setting that bounds the workers changes first. */
function jobTimes(jobs: FinalJob[]): [string, string][] {
  const byType = new Map<string, number[]>();
  for (const { job } of jobs) {
    const seconds = runSeconds(job);
    if (seconds === null) continue;
    byType.set(job.source_type, [...(byType.get(job.source_type) ?? []), seconds]);
  }
  return [...byType].map(([type, times]) => [
    type,
    `p50 ${quantile(times, 0.5).toFixed(1)} s  p95 ${quantile(times, 0.95).toFixed(1)} s  max ${Math.max(...times).toFixed(1)} s  (${times.length})`,
  ]);
}

/** How many jobs had started and not yet ended at `at`. */
function jobsUnderWay(jobs: FinalJob[], at: number): number {
  return jobs.filter(({ job }) => {
    const started = job.started_at ? Date.parse(job.started_at) : Number.POSITIVE_INFINITY;
    const ended = job.finished_at ? Date.parse(job.finished_at) : Number.POSITIVE_INFINITY;
    return started <= at && at < ended;
  }).length;
}

const signedPercent = (from: number, to: number) =>
  from ? `${to >= from ? '+' : ''}${((100 * (to - from)) / from).toFixed(1)} %` : 'n/a';

function nearest(samples: Sample[], at: number): Sample {
  return samples.reduce((best, s) => (Math.abs(s.at - at) < Math.abs(best.at - at) ? s : best), samples[0]);
}

/**
 * Memory, descriptors and CPU per stack process: warm-up, end (queues drained), peak, and idle (two minutes
 * later, once serverless offline has retired its idle function instances); the stack's totals; the soak's windows.
 */
export function resources(samples: Sample[], end: Sample, idle: Sample, window: Window, jobs: FinalJob[]): Check[] {
  const warm = nearest(samples, window.warmUpAt);
  const span = SOAK_WINDOW_SHARE * (window.roundsStopAt - window.loadStart);
  const afterWarmUp = samples.filter((s) => s.at >= window.warmUpAt && s.at <= window.warmUpAt + span);
  const lastFull = samples.filter((s) => s.at >= window.roundsStopAt - span && s.at <= window.roundsStopAt);
  const median = (of: Sample[], value: (s: Sample) => number) => quantile(of.map(value), 0.5);
  const medianRss = (of: Sample[], label: string) => median(of, (s) => s.byLabel[label]?.rssBytes ?? 0);
  const underWay = (of: Sample[]) => median(of, (s) => jobsUnderWay(jobs, s.at));
  const soakRows: [string, string][] = [
    ['jobs under way (median)', `after warm-up ${underWay(afterWarmUp)}, last window ${underWay(lastFull)}`],
  ];
  const first = samples[0];
  const labels = Object.keys(end.byLabel);
  const rows: [string, string][] = [];
  const checks: Check[] = [];
  const seconds = (end.at - first.at) / 1000;
  for (const label of labels) {
    const w = warm.byLabel[label];
    const e = end.byLabel[label];
    const peakRss = Math.max(...samples.map((s) => s.byLabel[label]?.rssBytes ?? 0));
    const peakFds = Math.max(...samples.map((s) => s.byLabel[label]?.fds ?? 0));
    const i = idle.byLabel[label];
    const cpu = (e?.cpuSeconds ?? 0) - (first.byLabel[label]?.cpuSeconds ?? 0);
    rows.push([
      label,
      `RSS warm-up ${bytes(w?.rssBytes ?? 0)}, end ${bytes(e?.rssBytes ?? 0)}, peak ${bytes(peakRss)}, idle ${bytes(i?.rssBytes ?? 0)}; fds warm-up ${w?.fds ?? 0}, end ${e?.fds ?? 0}, peak ${peakFds}; threads warm-up ${w?.threads ?? 0}, end ${e?.threads ?? 0}, idle ${i?.threads ?? 0}; CPU ${cpu.toFixed(1)} s (${((100 * cpu) / seconds).toFixed(0)} % of a core)`,
    ]);
    const [before, lastWindow] = [medianRss(afterWarmUp, label), medianRss(lastFull, label)];
    const retained = i?.rssBytes ?? 0;
    const growth = before ? (retained - before) / before : 0;
    soakRows.push([
      label,
      `RSS after warm-up ${bytes(before)}, last window ${bytes(lastWindow)} (${signedPercent(before, lastWindow)}), idle after the load ${bytes(retained)} (${signedPercent(before, retained)})`,
    ]);
    checks.push({
      name: `soak flat: ${label} resident memory idle after the load within ${SOAK_GROWTH_LIMIT * 100} % of warm-up`,
      pass: growth <= SOAK_GROWTH_LIMIT,
      detail: `${bytes(before)} (median of ${afterWarmUp.length} samples) → ${bytes(retained)} (${(growth * 100).toFixed(1)} %)`,
    });
  }
  const peakTotal = Math.max(...samples.map((s) => stackTotal(s, 'rssBytes')));
  rows.push([
    'whole stack',
    `RSS warm-up ${bytes(stackTotal(warm, 'rssBytes'))}, end ${bytes(stackTotal(end, 'rssBytes'))}, peak ${bytes(peakTotal)} (target < ${bytes(STACK_RSS_TARGET_BYTES)}), idle ${bytes(stackTotal(idle, 'rssBytes'))}; fds end ${stackTotal(end, 'fds')}`,
  ]);
  printTable(
    `Stack processes (sampled every 5 s; warm-up at ${((window.warmUpAt - window.loadStart) / 1000).toFixed(0)} s into the load, end after the queues drained, idle 2 min later)`,
    rows,
  );
  printTable(
    `Soak (medians of ${(span / 1000).toFixed(0)}-s windows: the one after the warm-up and the last before the teams stop starting rounds)`,
    soakRows,
  );
  checks.unshift({
    name: `whole stack resident < ${bytes(STACK_RSS_TARGET_BYTES)}`,
    pass: peakTotal < STACK_RSS_TARGET_BYTES,
    detail: `peak ${bytes(peakTotal)}`,
  });
  return checks;
}

export function printChecks(checks: Check[]): void {
  process.stdout.write('\nChecks\n------\n');
  for (const c of checks) process.stdout.write(`  ${c.pass ? 'PASS' : 'FAIL'}  ${c.name}: ${c.detail}\n`);
}
