/**
 * Resident memory of a process and everything it started, read from /proc
 * (Linux): how the video benchmark watches the local service's Node process
 * and the ffmpeg processes its workers run, and the PDF import's tests the
 * service's process while hostile documents are read.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface RssPeaks {
  /** The serverless offline process alone (every handler's worker thread). */
  nodeMb: number;
  /** The largest single ffmpeg/ffprobe. */
  ffmpegMb: number;
  /** The most ffmpeg processes at once. */
  ffmpegCount: number;
  /** Node process + the largest ffmpeg of the same sample: one worker, overstated. */
  workerMb: number;
  /** The whole process tree (Node, every ffmpeg, anything else it started). */
  treeMb: number;
  samples: number;
}

const RSS_LINE = /^VmRSS:\s+(\d+)\s+kB/m;
const PEAK_LINE = /^VmHWM:\s+(\d+)\s+kB/m;

/**
 * This process's peak resident memory in MB. Not `resourceUsage().maxRSS`:
 * Linux carries a parent's peak into a child it starts (the fork's copy of
 * the parent's memory is counted before exec replaces it), so a benchmark's
 * measured child would report at least its parent's size. VmHWM is the peak
 * of this process's own memory since exec.
 */
export function peakRssMb(): number {
  try {
    return Number(PEAK_LINE.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;
  } catch {
    return process.resourceUsage().maxRSS / 1024; // not Linux: kilobytes there too, possibly inherited
  }
}

/** A process's resident memory in MB, from /proc; 0 once it is gone. */
export function residentMb(pid: number): number {
  try {
    return Number(RSS_LINE.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** The descendants of `root` (itself included) with their command names and RSS in MB. */
export function processTree(root: number): { pid: number; comm: string; rssMb: number }[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
      parent.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone since the listing
    }
  }
  const inTree = new Set([root]);
  for (let grown = true; grown; ) {
    grown = false;
    for (const [pid, ppid] of parent)
      if (!inTree.has(pid) && inTree.has(ppid)) {
        inTree.add(pid);
        grown = true;
      }
  }
  const out: { pid: number; comm: string; rssMb: number }[] = [];
  for (const pid of inTree) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      out.push({ pid, comm, rssMb: Number(RSS_LINE.exec(status)?.[1] ?? 0) / 1024 });
    } catch {
      // gone since the listing
    }
  }
  return out;
}

/** Samples the service's process tree until stopped; returns the peaks. */
export function sampleRss(root: number, everyMs: number): { stop: () => RssPeaks; comms: Set<string> } {
  const peaks: RssPeaks = { nodeMb: 0, ffmpegMb: 0, ffmpegCount: 0, workerMb: 0, treeMb: 0, samples: 0 };
  const comms = new Set<string>();
  const sample = () => {
    const tree = processTree(root);
    const node = tree.find((p) => p.pid === root)?.rssMb ?? 0;
    const media = tree.filter((p) => p.comm === 'ffmpeg' || p.comm === 'ffprobe');
    const largest = Math.max(0, ...media.map((p) => p.rssMb));
    for (const p of tree) comms.add(p.comm);
    peaks.nodeMb = Math.max(peaks.nodeMb, node);
    peaks.ffmpegMb = Math.max(peaks.ffmpegMb, largest);
    peaks.ffmpegCount = Math.max(peaks.ffmpegCount, media.length);
    peaks.workerMb = Math.max(peaks.workerMb, node + largest);
    peaks.treeMb = Math.max(
      peaks.treeMb,
      tree.reduce((n, p) => n + p.rssMb, 0),
    );
    peaks.samples++;
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    comms,
    stop: () => {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}
