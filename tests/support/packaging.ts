/**
 * Runs `serverless package` on a snapshot of the service and reads what it
 * wrote: CloudFormation templates (root + split-stacks nested stacks) and
 * function zips. Used by tests/packaging.
 *
 * The service is copied to a temporary directory (node_modules and the media
 * layer zips in .layers symlinked) because packaging creates and then deletes
 * `.serverless/` and `.esbuild/` in the service directory, which would break
 * a `serverless offline` running from the repository at the same time.
 *
 * The CLI runs with no AWS credentials, AWS endpoints pointed at a closed
 * local port, no SDK retries, and a preload that refuses (and records) every
 * outbound connection that is not to loopback: packaging must not need AWS.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.join(__dirname, '..', '..');

/** Not part of the service, or produced by it. */
const NOT_COPIED = new Set(['.git', '.serverless', '.esbuild', '.build', '.local', 'coverage', 'tmp']);

/** Shared with the snapshot rather than copied: installed packages and the media layer zips (~60 MB). */
const LINKED = ['node_modules', '.layers'];

/** Copies the service (not node_modules and .layers: symlinked) into a fresh temporary directory. */
export function snapshotService(sourceDir = repoRoot): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sls-package-'));
  const serviceDir = path.join(dir, 'service');
  fs.mkdirSync(serviceDir);
  for (const entry of fs.readdirSync(sourceDir)) {
    if (NOT_COPIED.has(entry) || LINKED.includes(entry)) continue;
    fs.cpSync(path.join(sourceDir, entry), path.join(serviceDir, entry), { recursive: true });
  }
  for (const entry of LINKED) {
    if (fs.existsSync(path.join(sourceDir, entry)))
      fs.symlinkSync(path.join(sourceDir, entry), path.join(serviceDir, entry), 'dir');
  }
  return serviceDir;
}

/** Deletes a snapshot made by snapshotService() and everything packaged from it. */
export function removeSnapshot(serviceDir: string): void {
  const workDir = path.dirname(serviceDir);
  if (path.basename(workDir).startsWith('sls-package-')) fs.rmSync(workDir, { recursive: true, force: true });
}

/** Preload for the CLI's node processes: refuse and log non-loopback connections. */
const NETWORK_GUARD = `'use strict';
const fs = require('fs');
const net = require('net');
const log = process.env.PACKAGING_NETWORK_LOG;
const loopback = (h) => !h || h === 'localhost' || h === '::1' || /^127\\./.test(h) || h === '::ffff:127.0.0.1';
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const opts = first && typeof first === 'object' ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  if (opts.path || loopback(opts.host)) return connect.apply(this, args);
  const target = String(opts.host) + ':' + String(opts.port);
  if (log) fs.appendFileSync(log, process.pid + ' ' + target + '\\n');
  const error = Object.assign(new Error('network blocked by packaging test: ' + target), { code: 'ENETUNREACH' });
  process.nextTick(() => this.destroy(error));
  return this;
};
`;

export interface PackageRun {
  serviceDir: string;
  packageDir: string;
  exitCode: number | null;
  output: string;
  durationMs: number;
  /** host:port of every refused outbound connection. */
  networkAttempts: string[];
}

/**
 * `extraEnv` is the packaging machine's environment on top of a clean one:
 * the checkout's .env and the machine-wide settings file are ignored, so only
 * what the test sets differs from the defaults.
 */
export async function runServerlessPackage(
  serviceDir: string,
  stage = 'ci',
  timeoutMs = 9 * 60_000,
  extraEnv: Record<string, string> = {},
): Promise<PackageRun> {
  const workDir = path.dirname(serviceDir);
  const packageDir = path.join(workDir, 'package');
  const guard = path.join(workDir, 'network-guard.js');
  const networkLog = path.join(workDir, 'network-attempts.log');
  // Whatever the CLI and its plugins write to a temporary directory stays
  // inside workDir, so removeSnapshot() takes it away.
  const tmpDir = path.join(workDir, 'tmp');
  fs.mkdirSync(tmpDir, { recursive: true });
  fs.writeFileSync(guard, NETWORK_GUARD);

  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if ((/^AWS_/.test(name) && !/^AWS_SDK_JS_/.test(name)) || name === 'NODE_ENV' || name.startsWith('JEST_'))
      delete env[name];
  }
  Object.assign(env, {
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ENDPOINT_URL: 'http://127.0.0.1:9',
    AWS_CONFIG_FILE: path.join(workDir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: path.join(workDir, 'no-aws-credentials'),
    SLS_AWS_REQUEST_MAX_RETRIES: '0',
    AWS_CLIENT_TIMEOUT: '5000',
    PACKAGING_NETWORK_LOG: networkLog,
    NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --require ${guard}`.trim(),
    TMPDIR: tmpDir,
    CI: 'true',
    MACHINE_SETTINGS_FILE: path.join(workDir, 'no-machine-settings.env'),
    DOTENV_FILE: path.join(workDir, 'no-dotenv'),
  });
  Object.assign(env, extraEnv);

  const started = Date.now();
  const child = spawn('npx', ['serverless', 'package', '--stage', stage, '--package', packageDir], {
    cwd: serviceDir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  clearTimeout(timer);

  const networkAttempts = fs.existsSync(networkLog)
    ? fs
        .readFileSync(networkLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(' ')[1])
    : [];
  return { serviceDir, packageDir, exitCode, output, durationMs: Date.now() - started, networkAttempts };
}

// ---------------------------------------------------------------- templates

export interface Template {
  AWSTemplateFormatVersion?: string;
  Parameters?: Record<string, unknown>;
  Resources: Record<
    string,
    { Type: string; Properties?: Record<string, unknown>; DependsOn?: string | string[]; Condition?: string }
  >;
  Outputs?: Record<string, { Value: unknown }>;
  Conditions?: Record<string, unknown>;
}

export interface TemplateFile {
  file: string;
  bytes: number;
  template: Template;
}

const ROOT_TEMPLATE = 'cloudformation-template-update-stack.json';

/** The root template and every nested stack template (the plugin's own file pattern). */
export function readTemplates(packageDir: string): { root: TemplateFile; nested: TemplateFile[] } {
  const read = (file: string): TemplateFile => {
    const text = fs.readFileSync(path.join(packageDir, file), 'utf8');
    return { file, bytes: Buffer.byteLength(text), template: JSON.parse(text) as Template };
  };
  const nested = fs
    .readdirSync(packageDir)
    .filter((f) => /nested-stack(-[0-9]+)?\.json$/.test(f))
    .sort()
    .map(read);
  return { root: read(ROOT_TEMPLATE), nested };
}

/** The nested stack file a root AWS::CloudFormation::Stack resource points at. */
export function nestedTemplateFileOf(stackResource: Template['Resources'][string]): string | undefined {
  const url = stackResource.Properties?.TemplateURL as { 'Fn::Join'?: [string, unknown[]] } | undefined;
  const parts = url?.['Fn::Join']?.[1];
  const last = parts?.[parts.length - 1];
  return typeof last === 'string' ? last : undefined;
}

/**
 * References in a template that point at nothing in that template: Ref,
 * Fn::GetAtt, ${…} in Fn::Sub, DependsOn and Condition. Nested-stack outputs
 * read by the root (Fn::GetAtt [XNestedStack, Outputs.Y]) are checked by the
 * caller against the nested template.
 */
export function danglingReferences(template: Template): string[] {
  const resources = template.Resources ?? {};
  const parameters = template.Parameters ?? {};
  const conditions = template.Conditions ?? {};
  const isPseudo = (name: string) => name.startsWith('AWS::');
  const known = (name: string) => name in resources || name in parameters || isPseudo(name);
  const problems: string[] = [];

  const visit = (value: unknown, where: string): void => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        visit(v, `${where}[${i}]`);
      });
      return;
    }
    if (!value || typeof value !== 'object') return;
    const obj = value as Record<string, unknown>;
    if (typeof obj.Ref === 'string' && !known(obj.Ref)) problems.push(`${where}: Ref ${obj.Ref}`);
    if ('Fn::GetAtt' in obj) {
      const getAtt = obj['Fn::GetAtt'];
      const id = Array.isArray(getAtt) ? String(getAtt[0]) : String(getAtt).split('.')[0];
      if (!(id in resources)) problems.push(`${where}: Fn::GetAtt ${id}`);
    }
    if ('Fn::Sub' in obj) {
      const sub = obj['Fn::Sub'];
      const [text, vars] = Array.isArray(sub)
        ? [String(sub[0]), (sub[1] ?? {}) as Record<string, unknown>]
        : [String(sub), {}];
      for (const match of text.matchAll(/\$\{([^!}][^}]*)\}/g)) {
        const name = match[1].split('.')[0];
        if (!(name in vars) && !known(name)) problems.push(`${where}: Fn::Sub \${${match[1]}}`);
      }
      visit(vars, `${where}.Fn::Sub`);
    }
    if ('Fn::If' in obj && Array.isArray(obj['Fn::If']) && !(String(obj['Fn::If'][0]) in conditions)) {
      problems.push(`${where}: Fn::If ${String(obj['Fn::If'][0])}`);
    }
    for (const [key, child] of Object.entries(obj)) {
      if (key !== 'Fn::Sub') visit(child, `${where}.${key}`);
    }
  };

  for (const [id, resource] of Object.entries(resources)) {
    const dependsOn = resource.DependsOn === undefined ? [] : ([] as string[]).concat(resource.DependsOn);
    for (const dep of dependsOn) if (!(dep in resources)) problems.push(`${id}.DependsOn: ${dep}`);
    if (resource.Condition && !(resource.Condition in conditions))
      problems.push(`${id}.Condition: ${resource.Condition}`);
    visit(resource.Properties, `${id}.Properties`);
  }
  for (const [name, output] of Object.entries(template.Outputs ?? {})) visit(output, `Outputs.${name}`);
  return problems;
}

// ---------------------------------------------------------------- artifacts

/** Every file under `dir` (recursively) whose bytes contain one of `needles`, as "file: needle". */
export function filesContaining(dir: string, needles: string[]): string[] {
  if (!fs.existsSync(dir)) return [];
  const hits: string[] = [];
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const bytes = fs.readFileSync(file);
    for (const needle of needles) if (bytes.includes(needle)) hits.push(`${path.relative(dir, file)}: ${needle}`);
  }
  return hits;
}

export function zipSizes(packageDir: string): Record<string, number> {
  const sizes: Record<string, number> = {};
  for (const file of fs.readdirSync(packageDir)) {
    if (file.endsWith('.zip')) sizes[file.slice(0, -'.zip'.length)] = fs.statSync(path.join(packageDir, file)).size;
  }
  return sizes;
}

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** A fixed-width text table for the test log. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells
    .map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '))
    .join('\n');
}
