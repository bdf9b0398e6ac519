/**
 * Settings layering, highest priority first (spec, Other configuration):
 *   1. constructor arguments
 *   2. real environment variables
 *   3. the checkout's .env
 *   4. an optional machine-wide file
 *   5. field defaults
 * Empty values in the two file layers do not shadow lower layers.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { SETTING_NAMES, settingsSchema, type Settings, type SettingsInput } from './schema';

/** Where the machine-wide file is looked for unless MACHINE_SETTINGS_FILE names another. */
const DEFAULT_MACHINE_SETTINGS_FILE = '/etc/contents-inventory/settings.env';

export class ConfigError extends Error {
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(`Invalid configuration: ${problems.map((p) => `${p.variable}: ${p.message}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}

export interface LoadOptions {
  /** Layer 1: explicit overrides (tests, scripts). */
  overrides?: SettingsInput;
  /** Layer 2: defaults to process.env. */
  env?: Record<string, string | undefined>;
  /** Layer 3: path of the checkout's .env; defaults to DOTENV_FILE, else ./.env of the working directory. */
  dotenvPath?: string;
  /** Layer 4: path of the machine-wide file; defaults to MACHINE_SETTINGS_FILE or DEFAULT_MACHINE_SETTINGS_FILE. */
  machineFilePath?: string;
}

function readEnvFile(path: string): Record<string, string> {
  if (!path || !existsSync(path)) return {};
  const parsed = parseDotenv(readFileSync(path));
  // An empty value in a file layer must not shadow a lower layer.
  return Object.fromEntries(Object.entries(parsed).filter(([, v]) => v.trim() !== ''));
}

/** The raw values the layers set, before defaults and validation (undefined = no layer sets it). */
export function layeredValues(options: LoadOptions = {}): Record<string, unknown> {
  const env = options.env ?? process.env;
  const machineFile = options.machineFilePath ?? env.MACHINE_SETTINGS_FILE ?? DEFAULT_MACHINE_SETTINGS_FILE;
  const dotenvFile = options.dotenvPath ?? env.DOTENV_FILE ?? resolve(process.cwd(), '.env');
  const layers: Record<string, unknown>[] = [
    pickKnown(readEnvFile(machineFile)),
    pickKnown(readEnvFile(dotenvFile)),
    pickKnown(env),
    pickKnown(options.overrides ?? {}),
  ];
  const merged: Record<string, unknown> = {};
  for (const layer of layers) Object.assign(merged, layer);
  return merged;
}

export function loadSettings(options: LoadOptions = {}): Settings {
  const merged = layeredValues(options);
  const result = settingsSchema.safeParse(merged);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => ({
        variable: String(issue.path[0] ?? '(settings)'),
        message: `${issue.message} (got ${JSON.stringify(merged[String(issue.path[0])])})`,
      })),
    );
  }
  const problems = secretStrengthProblems(result.data);
  if (problems.length) throw new ConfigError(problems);
  return Object.freeze(result.data) as Settings;
}

/** HS256 keys shorter than the hash output are guessable offline from one token. */
const MIN_JWT_SECRET_BYTES = 32;

/**
 * Outside APP_ENV=local the login token secret must be at least
 * MIN_JWT_SECRET_BYTES long. An empty secret is accepted, as the spec says:
 * it is "not configured", every login answers 401 and the service logs why;
 * it can never be used to forge a token. Secrets resolved from SSM go through
 * the same check when they are merged (index.ts, loadSecrets).
 */
function secretStrengthProblems(settings: Settings): { variable: string; message: string }[] {
  if (settings.APP_ENV === 'local') return [];
  const bytes = Buffer.byteLength(settings.CLAIMS_PLATFORM_JWT_SECRET, 'utf8');
  if (bytes === 0 || bytes >= MIN_JWT_SECRET_BYTES) return [];
  return [
    {
      variable: 'CLAIMS_PLATFORM_JWT_SECRET',
      message: `must be at least ${MIN_JWT_SECRET_BYTES} bytes outside APP_ENV=local (got ${bytes} bytes; value not shown)`,
    },
  ];
}

function pickKnown(source: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of SETTING_NAMES) {
    const value = source[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
