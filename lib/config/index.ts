/**
 * The process-wide settings, loaded once per Lambda container on first use.
 * A bad value throws ConfigError naming the variable, which fails the
 * container's start (and `npm start`, which validates before launching).
 */
import { loadSettings } from './load';
import type { Settings } from './schema';
import { fetchSecrets, SECRETS_PARAMETER_PATH_VARIABLE, type SecretSettingName } from './secrets';

export { loadSettings, layeredValues, ConfigError } from './load';
// isSecretSetting is read by deploy/manifest.js, which loads this module with esbuild.
export { SECRET_SETTING_NAMES, isSecretSetting } from './secrets';
export { settingsSchema, SETTING_NAMES } from './schema';
export { type HostRule, hostAllowed, hostRules, isLoopbackHost } from './host-rules';
export type { Settings, SettingsInput } from './schema';

let current: Settings | undefined;
/** The secret values the current settings were built with (JSON), to rebuild only on a change. */
let mergedSecrets: string | undefined;

export function settings(): Settings {
  current ??= loadSettings();
  return current;
}

/**
 * Resolves the secret settings from SSM Parameter Store when the function was
 * deployed with SECRETS_PARAMETER_PATH, and merges them into settings() as the
 * highest layer (then validated again: a short login secret throws
 * ConfigError here). Every entry point awaits this before its handler; the
 * values are cached (SECRETS_MAX_AGE_SECONDS in ./secrets), so only a cold start or an
 * expired cache calls SSM. Without the variable it does nothing.
 */
export async function loadSecrets(env: Record<string, string | undefined> = process.env): Promise<void> {
  const path = env[SECRETS_PARAMETER_PATH_VARIABLE];
  if (!path) return;
  const secrets: Partial<Record<SecretSettingName, string>> = await fetchSecrets(path);
  const key = JSON.stringify(secrets);
  if (current && key === mergedSecrets) return;
  current = loadSettings({ env, overrides: secrets });
  mergedSecrets = key;
}

/** Tests only: replace or reset the cached settings. */
export function resetSettings(next?: Settings): void {
  current = next;
  mergedSecrets = undefined;
}

/** Accepts a bare domain (https assumed) or a full base URL; strips trailing slashes. */
export function baseUrl(value: string): string {
  const trimmed = value.trim().replace(/\/+$/, '');
  if (!trimmed) return '';
  return /^https?:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
}
