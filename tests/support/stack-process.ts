/**
 * A whole local stack (emulators, serverless offline, queue delivery) run in
 * a child process (stack-process-main.js) instead of the test's own, so the
 * test can kill all of it with SIGKILL, the way a machine dies, and start it
 * again on the same data directory and ports, as `npm start` would be
 * restarted after a crash.
 *
 * The stack is three process groups: the child itself, serverless offline
 * (with anything its functions spawned, ffmpeg included) and DynamoDB Local
 * (java). killAll() finds every process under the child in /proc (Linux), then
 * sends SIGKILL to each group and each process in one go, so no part of the
 * stack outlives another long enough to notice.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface StackOptions {
  stage: string;
  dataDir: string;
  ports: { http: number; lambda: number; stream: number; dynamodb: number; s3: number; sqs: number };
  env: Record<string, string>;
  /** The stack's output (serverless offline's and the functions') is appended here. */
  logFile: string;
}

export interface StackProcess {
  url: string;
  /** The environment the functions run with (endpoints, table and bucket names). */
  env: Record<string, string>;
  /** SIGKILLs every process of the stack at once; answers how many there were, once all are gone. */
  killAll(): Promise<number>;
  /**
   * SIGKILLs only the process that started the stack (as when `npm start`'s own process is killed): serverless
   * offline and DynamoDB Local, in groups of their own, live on. Answers their processes.
   */
  killStarter(): Promise<number[]>;
  /** Stops the stack cleanly (SIGTERM), SIGKILL after 20 s. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 180_000;

/** pid → [parent pid, process group, state] of every process, read from /proc. */
function processTable(): Map<number, { ppid: number; pgid: number; state: string }> {
  const table = new Map<number, { ppid: number; pgid: number; state: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ')'.
      const [state, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(entry), { ppid: Number(ppid), pgid: Number(pgid), state });
    } catch {
      // gone while listing
    }
  }
  return table;
}

/** `root` and every process under it. */
function processTree(root: number, table = processTable()): number[] {
  const tree = [root];
  for (let i = 0; i < tree.length; i++)
    for (const [pid, { ppid }] of table) if (ppid === tree[i] && !tree.includes(pid)) tree.push(pid);
  return tree.filter((pid) => table.has(pid));
}

/** Gone, or a zombie nobody has reaped yet (its parent was killed too). */
export function dead(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

const signal = (target: number, name: NodeJS.Signals) => {
  try {
    process.kill(target, name);
  } catch {
    // already gone
  }
};

export async function startStackProcess(options: StackOptions): Promise<StackProcess> {
  const log = openSync(options.logFile, 'a');
  const { logFile, ...stackOptions } = options;
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, 'stack-process-main.js')], {
    cwd: join(__dirname, '..', '..'),
    env: { ...process.env, STACK_PROCESS_OPTIONS: JSON.stringify(stackOptions) },
    // A process group of its own: nothing aimed at the test's group reaches it, and its group can be killed whole.
    detached: true,
    stdio: ['ignore', 'pipe', log],
  });
  closeSync(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ url: string; env: Record<string, string> }>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(
      () => reject(new Error(`the stack was not ready within ${READY_TIMEOUT_MS} ms`)),
      READY_TIMEOUT_MS,
    );
    child.stdout?.on('data', (chunk) => {
      out += String(chunk);
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      clearTimeout(timer);
      resolve(JSON.parse(line));
    });
    child.once('exit', (code, sig) => {
      clearTimeout(timer);
      const tail = readFileSync(logFile, 'utf8').slice(-4000);
      reject(new Error(`the stack process exited (${code ?? sig}) before it was ready:\n${tail}`));
    });
  });
  child.stdout?.resume();

  return {
    url: ready.url,
    env: ready.env,
    async killAll() {
      const table = processTable();
      const pids = processTree(child.pid as number, table);
      const groups = new Set(pids.map((pid) => table.get(pid)?.pgid).filter((g): g is number => Boolean(g)));
      for (const group of groups) signal(-group, 'SIGKILL');
      for (const pid of pids) signal(pid, 'SIGKILL');
      await exited;
      const deadline = Date.now() + 10_000;
      while (pids.some((pid) => !dead(pid))) {
        if (Date.now() > deadline)
          throw new Error(`processes of the stack outlived SIGKILL: ${pids.filter((p) => !dead(p))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      return pids.length;
    },
    async killStarter() {
      const others = processTree(child.pid as number).filter((pid) => pid !== child.pid);
      signal(child.pid as number, 'SIGKILL');
      await exited;
      return others;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const pids = processTree(child.pid as number);
      signal(child.pid as number, 'SIGTERM');
      const timer = setTimeout(() => {
        for (const pid of pids) signal(pid, 'SIGKILL');
      }, 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
