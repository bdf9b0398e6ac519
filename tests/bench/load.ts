/**
 * Benchmark (k): load and soak, many teams at once on a local stack of its
 * own. Does the service keep working when every team is busy, and does
 * anything leak or pile up over time?
 *
 *   BENCH_LOAD_TEAMS    teams working at once (default 20)
 *   BENCH_LOAD_MINUTES  how long they start new rounds of work (default 10); a round under way then is finished
 *
 * The service is copied to a throwaway directory and `node localstack/runtime/start.js`
 * runs there (APP_ENV=stage, billing on) against fakes of every external system
 * in this process (./load/fakes.ts: the AI gateway and speech-to-text answer in
 * 1–4 s and fail a few percent of requests with 429/500/503). Each team loops
 * over an adjuster's work (./load/team.ts). Every API request is timed by route
 * class (./load/traffic.ts); the stack's processes are read from /proc every 5 s
 * (./load/proc-sampler.ts). After the load: the queues must drain, then the
 * checks (./load/checks.ts) and the figures with their targets
 * (./load/figures.ts): read p95 < 500 ms during the load, the whole stack
 * < 4 GB resident, and each process's resident memory idle after the load
 * within 10 % above its warm-up figure: the median of the samples of the
 * window after the warm-up (20 % into the load, whose last rounds run past
 * BENCH_LOAD_MINUTES; the latency target counts from there too), a fifth of
 * BENCH_LOAD_MINUTES long. The last such window under load, with the jobs
 * under way in each, and the figures right after the drain are printed beside it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeToneBursts } from '../support/fake-speech';
import { cardGridList, layoutTag } from '../support/pdf-fixtures';
import { makeWalkthrough } from '../support/walkthrough';
import {
  type Check,
  crossTeamCheck,
  drainQueues,
  finalJobs,
  itemChecks,
  ledgerCheck,
  printSlowJobLogs,
  serverErrorCheck,
  terminalCheck,
} from './load/checks';
import { startFakes } from './load/fakes';
import { latency, printChecks, queueWait, resources, throughput } from './load/figures';
import { startSampling } from './load/proc-sampler';
import { stackProcesses, startStack } from './load/stack';
import { type Media, newTeam, runTeam } from './load/team';
import { watchTraffic } from './load/traffic';
import { emitResult, printTable, runBenchmark } from './report';

const WARM_UP_SHARE = 0.2;
const RECORDING_SECONDS = 4;
const IDLE_SAMPLE_AFTER_MS = 125_000;

function setting(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!(value > 0)) throw new Error(`${name} must be a positive number (got ${raw})`);
  return value;
}

/** A short walkthrough (one red box, one burst of sound) and a voice note, made once for every team. */
function makeMedia(dir: string): Media {
  const video = makeWalkthrough(join(dir, 'walk.mp4'), {
    seconds: RECORDING_SECONDS,
    width: 320,
    height: 180,
    fps: 10,
    objects: [{ colour: 'red', from: 0, to: RECORDING_SECONDS, box: { x: 0.3, y: 0.3, width: 0.3, height: 0.4 } }],
    bursts: [[1, 1.5]],
    changingGrain: false,
  });
  const audio = makeToneBursts(
    join(dir, 'note.m4a'),
    [
      [0.5, 1],
      [2, 2.5],
    ],
    RECORDING_SECONDS,
  );
  return { video: readFileSync(video), audio };
}

async function main(): Promise<void> {
  const teamCount = Math.round(setting('BENCH_LOAD_TEAMS', 20));
  const minutes = setting('BENCH_LOAD_MINUTES', 10);
  const work = mkdtempSync(join(tmpdir(), 'bench-load-'));
  const fakes = await startFakes();
  let stack: Awaited<ReturnType<typeof startStack>> | null = null;
  let traffic: ReturnType<typeof watchTraffic> | null = null;
  try {
    const media = makeMedia(work);
    process.stdout.write(`starting a local stack of its own (${teamCount} teams, ${minutes} min)…\n`);
    const starting = Date.now();
    stack = await startStack(fakes.serviceSettings());
    process.stdout.write(`stack ready at ${stack.url} in ${((Date.now() - starting) / 1000).toFixed(1)} s\n`);
    // The tests/support helpers find the service, the emulators and the fakes through these.
    Object.assign(process.env, stack.awsEnv, {
      TEST_SERVICE_URL: stack.url,
      TABLE_NAME: stack.names.table,
      MEDIA_BUCKET: stack.names.bucket,
      TEST_FAKE_GATEWAY_URL: fakes.gateway.url,
      TEST_FAKE_BILLING_URL: fakes.billing.url,
      TEST_FAKE_SPEECH_URL: fakes.speech.url,
    });
    const running = stack;
    traffic = watchTraffic(stack.url);
    const sampler = startSampling(() => stackProcesses(running));

    const teams = [];
    const lists: Uint8Array[] = [];
    for (let n = 0; n < teamCount; n++) {
      teams.push(await newTeam(fakes, traffic));
      const tag = layoutTag();
      const list = await cardGridList({
        pages: 2,
        photosPerPage: 2,
        header: `Pack-out ${tag} - Contents inventory`,
        footerLines: [`Pack-out ${tag} - 9 Depot Road`],
      });
      lists.push(list.bytes);
    }
    const loadStart = Date.now();
    const benchCpuAtStart = process.cpuUsage();
    const until = loadStart + minutes * 60_000;
    const watched = traffic;
    await Promise.all(teams.map((team, n) => runTeam(team, fakes, media, lists[n], until, watched)));
    const loadEnd = Date.now();
    const benchCpu = process.cpuUsage(benchCpuAtStart);
    const machineLoad = loadavg();
    fakes.calm();
    process.stdout.write(`load over after ${((loadEnd - loadStart) / 60_000).toFixed(2)} min; draining the queues…\n`);

    const drained = await drainQueues(stack.awsEnv, stack.names.queuePrefix);
    const end = sampler.now();
    const drainedAt = Date.now();
    const jobs = await finalJobs(teams);
    await printSlowJobLogs(jobs, teams);
    // Known once the load is over: its last rounds run past BENCH_LOAD_MINUTES.
    const window = {
      loadStart,
      warmUpAt: loadStart + WARM_UP_SHARE * (loadEnd - loadStart),
      roundsStopAt: until,
      loadEnd,
    };

    printTable('Work done', [
      ['teams', String(teams.length)],
      ['rounds', String(teams.reduce((n, t) => n + t.rounds, 0))],
      ['homeowner sessions', String(teams.reduce((n, t) => n + t.homeownerSessions, 0))],
      ['provider failures injected', `AI gateway ${fakes.injected.gateway}, speech ${fakes.injected.speech}`],
      ['queues drained in', `${drained.seconds.toFixed(1)} s`],
      [
        'bench process CPU (fakes, clients)',
        `${((benchCpu.user + benchCpu.system) / 1e6).toFixed(1)} s over the load (${((benchCpu.user + benchCpu.system) / 10 / (loadEnd - loadStart)).toFixed(0)} % of a core)`,
      ],
      [
        'machine',
        `${availableParallelism()} cores; load average at the load's end ${machineLoad.map((n) => n.toFixed(2)).join(' ')} (other work on the machine inflates every figure)`,
      ],
    ]);
    const ledger = await ledgerCheck(fakes, teams, jobs);
    // serverless offline retires a function instance idle for 60 s, on a 60 s timer: what is left then is not a pool.
    await new Promise((r) => setTimeout(r, Math.max(0, drainedAt + IDLE_SAMPLE_AFTER_MS - Date.now())));
    const idle = sampler.now();
    sampler.stop();
    const checks: Check[] = [
      ...throughput(traffic, jobs, window),
      ...latency(traffic, window),
      ...queueWait(jobs),
      ...resources(sampler.samples, end, idle, window, jobs),
    ];
    const errors = teams.flatMap((t) => t.errors.map((e) => `team ${t.key}: ${e}`));
    checks.push(
      {
        name: 'every round of work went as the SPA expects',
        pass: errors.length === 0,
        detail: errors.length ? errors.slice(0, 8).join('; ') : 'no unexpected answer',
      },
      drained.check,
      terminalCheck(jobs, teams),
      ...itemChecks(jobs),
      serverErrorCheck(traffic),
      ledger,
      crossTeamCheck(traffic, teams, jobs),
    );
    printChecks(checks);
    const failed = checks.filter((c) => !c.pass);
    emitResult({
      name: 'load',
      pass: failed.length === 0,
      summary: {
        teams: String(teams.length),
        jobs: String(jobs.length),
        checks: `${checks.length - failed.length}/${checks.length} pass`,
        ...(failed.length
          ? {
              failed: failed
                .map((c) => c.name)
                .join('; ')
                .slice(0, 200),
            }
          : {}),
      },
    });
  } catch (err) {
    if (stack && process.env.BENCH_SERVICE_LOG === '1') process.stdout.write(stack.output());
    throw err;
  } finally {
    traffic?.restore();
    await stack?.stop();
    await fakes.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

runBenchmark('load', main);
