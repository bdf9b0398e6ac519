/**
 * Shared helpers of the benchmark entries (tests/bench/*.ts). Each entry runs
 * in a child process of tests/bench/run.js, prints its figures, and ends with
 * one machine-readable result line the runner puts in its summary table.
 */

import { execFileSync } from 'node:child_process';
import { backgroundFunctions, type QueueWorker } from '../../lib/background/functions';

export const RESULT_PREFIX = 'BENCH_RESULT ';

export interface BenchResult {
  name: string;
  /** Absent: the benchmark only reports figures; false makes `npm run bench` fail. */
  pass?: boolean;
  /** The few headline figures for the summary table, already formatted. */
  summary: Record<string, string>;
}

export function emitResult(result: BenchResult): void {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
}

/** The value at quantile q (0..1) of the numbers, nearest-rank. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const median = (values: number[]) => quantile(values, 0.5);
export const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
export const seconds = (value: number) => `${value.toFixed(2)} s`;

export function bytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(2)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(2)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

/** Prints aligned "label  value" rows under a heading. */
export function printTable(title: string, rows: [string, string][]): void {
  const width = Math.max(...rows.map(([label]) => label.length));
  process.stdout.write(`\n${title}\n${'-'.repeat(title.length)}\n`);
  for (const [label, value] of rows) process.stdout.write(`  ${label.padEnd(width)}  ${value}\n`);
}

export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the benchmarks through \`npm run bench\``);
  return value;
}

/** Runs a benchmark entry: prints an error result and exits non-zero when it throws. */
/** A queue worker as the service declares it (its environment, memory size). */
export function queueWorker(name: string): QueueWorker {
  const worker = backgroundFunctions.find((f): f is QueueWorker => f.kind === 'queue' && f.name === name);
  if (!worker) throw new Error(`no ${name} among the background functions`);
  return worker;
}

/**
 * Runs `node <entry> --child <args...>` (runBenchmarkWithChild's child), with
 * `worker`'s environment when given, and returns the JSON figures it printed
 * on its last line.
 */
export function childFigures<T>(entry: string, args: string[], worker?: QueueWorker): T {
  const out = execFileSync(process.execPath, [entry, '--child', ...args], {
    env: worker ? { ...process.env, ...worker.environment } : process.env,
    maxBuffer: 1024 * 1024,
  });
  return JSON.parse(out.toString().trim().split('\n').pop() as string) as T;
}

/**
 * A benchmark entry that measures part of its work in a fresh child process of
 * itself: `node <entry> --child <args...>` runs `child(args)`; otherwise the
 * benchmark runs.
 */
export function runBenchmarkWithChild(
  name: string,
  main: () => Promise<void>,
  child: (args: string[]) => Promise<void>,
): void {
  if (process.argv[2] !== '--child') {
    runBenchmark(name, main);
    return;
  }
  child(process.argv.slice(3)).then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exit(1);
    },
  );
}

export function runBenchmark(name: string, main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      emitResult({
        name,
        pass: false,
        summary: { error: err instanceof Error ? err.message.slice(0, 200) : String(err) },
      });
      process.exit(1);
    },
  );
}
