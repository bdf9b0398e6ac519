/**
 * Resident memory, open file descriptors and CPU of the stack's processes,
 * read from /proc every few seconds. Each listed process counts with its
 * whole tree (ffmpeg, worker children…), less the subtrees of the other
 * listed processes (the start process is the parent of the others).
 */
import fs from 'node:fs';
import type { StackProcess } from './stack';

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

interface ProcessSample {
  rssBytes: number;
  fds: number;
  /** Threads (serverless offline runs each function instance in a worker thread of its own). */
  threads: number;
  /** utime+stime+cutime+cstime of the tree, in seconds. */
  cpuSeconds: number;
  alive: boolean;
}

export interface Sample {
  at: number;
  byLabel: Record<string, ProcessSample>;
}

interface ProcStat {
  ppid: number;
  cpuTicks: number;
}

function readStat(pid: number): ProcStat | null {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const num = (n: number) => Number(fields[n - 3]);
    return { ppid: num(4), cpuTicks: num(14) + num(15) + num(16) + num(17) };
  } catch {
    return null;
  }
}

function statusOf(pid: number): { rssBytes: number; threads: number } {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    return { rssBytes: field('VmRSS') * 1024, threads: field('Threads') };
  } catch {
    return { rssBytes: 0, threads: 0 };
  }
}

function fdsOf(pid: number): number {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

/** Every live pid with its parent. */
function processTable(): Map<number, ProcStat> {
  const table = new Map<number, ProcStat>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) table.set(Number(entry), stat);
  }
  return table;
}

/** One reading of each listed process's tree. */
function sampleStack(processes: StackProcess[]): Sample {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const [pid, stat] of table) {
    const list = children.get(stat.ppid) ?? [];
    list.push(pid);
    children.set(stat.ppid, list);
  }
  const roots = new Set(processes.map((p) => p.pid));
  const byLabel: Record<string, ProcessSample> = {};
  for (const { pid, label } of processes) {
    const sample: ProcessSample = { rssBytes: 0, fds: 0, threads: 0, cpuSeconds: 0, alive: table.has(pid) };
    const queue = table.has(pid) ? [pid] : [];
    while (queue.length) {
      const current = queue.shift() as number;
      const status = statusOf(current);
      sample.rssBytes += status.rssBytes;
      sample.threads += status.threads;
      sample.fds += fdsOf(current);
      sample.cpuSeconds += (table.get(current)?.cpuTicks ?? 0) / CLOCK_TICKS_PER_SECOND;
      for (const child of children.get(current) ?? []) if (!roots.has(child)) queue.push(child);
    }
    byLabel[label] = sample;
  }
  return { at: Date.now(), byLabel };
}

/** Samples every `everyMs` until stopped; keeps every sample. */
export function startSampling(processes: () => StackProcess[], everyMs = 5000) {
  const samples: Sample[] = [sampleStack(processes())];
  const timer = setInterval(() => samples.push(sampleStack(processes())), everyMs);
  return {
    samples,
    /** A reading now, kept with the others. */
    now(): Sample {
      const sample = sampleStack(processes());
      samples.push(sample);
      return sample;
    },
    stop: () => clearInterval(timer),
  };
}

export const stackTotal = (sample: Sample, field: 'rssBytes' | 'fds') =>
  Object.values(sample.byLabel).reduce((total, p) => total + p[field], 0);
