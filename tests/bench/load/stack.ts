/**
 * The load benchmark's own local stack: the service copied to a throwaway
 * directory (node_modules linked) and `node localstack/runtime/start.js` run there on
 * free ports, stage `local`, until its ready line; stopped with SIGINT.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { removeSnapshot, snapshotService } from '../../support/packaging';

const { freePort }: { freePort: () => Promise<number> } = require('../../../localstack/emulators/emulators.js');
const { emulatorEnv }: { emulatorEnv: (ports: Record<string, number>) => Record<string, string> } =
  require('../../../localstack/emulators/emulators.js');
const {
  resourceNames,
}: {
  resourceNames: (o: { stage: string; env: NodeJS.ProcessEnv }) => {
    table: string;
    bucket: string;
    queuePrefix: string;
  };
} = require('../../../localstack/provision/provision.js');

const READY_LINE = 'Contents inventory service ready at';
/** `node localstack/runtime/start.js` always runs the stage `local`. */
const STAGE = 'local';
const READY_TIMEOUT_MS = 240_000;

export interface RunningStack {
  serviceDir: string;
  url: string;
  /** The start process (S3 and SQS emulators, queue delivery, stream server). */
  startPid: number;
  /** What the bench process needs to reach the emulators and the resources directly. */
  awsEnv: Record<string, string>;
  names: { table: string; bucket: string; queuePrefix: string };
  /** The last lines the stack printed, for an error report. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts the stack with `serviceEnv` (the service's settings); resolves at its ready line. */
export async function startStack(serviceEnv: Record<string, string>): Promise<RunningStack> {
  // The runner starts entries in the repository's root (a bundled entry's __dirname is elsewhere).
  const serviceDir = snapshotService(process.cwd());
  const ports: Record<string, number> = {};
  for (const name of ['http', 'lambda', 'stream', 'dynamodb', 's3', 'sqs']) ports[name] = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  // The bench's own environment must not name resources of another stack.
  for (const name of Object.keys(env))
    if (/^(AWS_|TABLE_NAME|MEDIA_BUCKET|QUEUE_NAME_PREFIX|TEST_|BENCH_)/.test(name)) delete env[name];
  Object.assign(env, serviceEnv);
  for (const [name, port] of Object.entries(ports)) env[`LOCAL_${name.toUpperCase()}_PORT`] = String(port);

  const child: ChildProcess = spawn(process.execPath, ['localstack/runtime/start.js'], {
    cwd: serviceDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  // BENCH_LOAD_SERVICE_LOG names a file that receives the stack's whole output (its tail alone is kept otherwise).
  const logFile = process.env.BENCH_LOAD_SERVICE_LOG ? fs.createWriteStream(process.env.BENCH_LOAD_SERVICE_LOG) : null;
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-20_000);
    logFile?.write(chunk);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);

  const stop = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        logFile?.end();
        removeSnapshot(serviceDir);
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.once('exit', () => {
        clearTimeout(timer);
        done();
      });
      child.kill('SIGINT');
    });

  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no ready line within ${READY_TIMEOUT_MS / 1000} s`)),
        READY_TIMEOUT_MS,
      );
      const onData = () => {
        const at = tail.indexOf(READY_LINE);
        if (at < 0) return;
        const match = /ready at (\S+)/.exec(tail.slice(at));
        if (!match) return;
        clearTimeout(timer);
        resolve(match[1]);
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the stack exited (${signal ?? code}) before it was ready:\n${tail.slice(-3000)}`));
      });
    });
    const awsEnv = emulatorEnv({ dynamodb: ports.dynamodb, s3: ports.s3, sqs: ports.sqs });
    const names = resourceNames({ stage: STAGE, env: { ...process.env, ...awsEnv } });
    return {
      serviceDir,
      url,
      startPid: child.pid as number,
      awsEnv,
      names,
      output: () => tail,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

export interface StackProcess {
  pid: number;
  label: string;
}

/** A readable label for a process of the stack, from its command line. */
function labelOf(command: string): string {
  if (/DynamoDBLocal/i.test(command)) return 'DynamoDB Local';
  if (/serverless|offline/i.test(command)) return 'serverless offline';
  return command.split(/\s+/).slice(0, 2).join(' ').slice(0, 40);
}

/** The stack record's roles (localstack/runtime/service.js), as the figures name them. */
const ROLE_LABELS: Record<string, string> = {
  api: 'serverless offline: API',
  workers: 'serverless offline: workers',
  functions: 'serverless offline',
  dynamodb: 'DynamoDB Local',
};

interface RecordedProcess {
  pid: number;
  command: string | null;
  role?: string;
}

/**
 * The stack's processes: the start process, and each one `<serviceDir>/.local/stack.json` lists
 * (its `role` as the label when it has one).
 */
export function stackProcesses(stack: RunningStack): StackProcess[] {
  const found: StackProcess[] = [{ pid: stack.startPid, label: 'start.js (S3, SQS, delivery, streams)' }];
  let record: unknown;
  try {
    record = JSON.parse(fs.readFileSync(path.join(stack.serviceDir, '.local', 'stack.json'), 'utf8'));
  } catch {
    return found;
  }
  const entries: RecordedProcess[] = Array.isArray(record)
    ? (record as RecordedProcess[])
    : [...(((record as { groups?: RecordedProcess[] }).groups ?? []) as RecordedProcess[])];
  for (const entry of entries) {
    if (!entry || typeof entry.pid !== 'number' || entry.pid === stack.startPid) continue;
    found.push({ pid: entry.pid, label: (entry.role && ROLE_LABELS[entry.role]) ?? labelOf(entry.command ?? '') });
  }
  return found;
}
