/**
 * The process-wide settings, loaded once per Lambda container on first use.
 * A bad value throws ConfigError naming the variable, which fails the
 * container's start (and `npm start`, which validates before launching).
 */
import { loadSettings } from './load';
import type { Settings } from './schema';

export { loadSettings, layeredValues, ConfigError, DEFAULT_MACHINE_SETTINGS_FILE } from './load';
export { settingsSchema, SETTING_NAMES } from './schema';
export type { Settings, SettingsInput } from './schema';

let current: Settings | undefined;

export function settings(): Settings {
  current ??= loadSettings();
  return current;
}

/** Tests only: replace or reset the cached settings. */
export function resetSettings(next?: Settings): void {
  current = next;
}

/** Accepts a bare domain (https assumed) or a full base URL; strips trailing slashes. */
export function baseUrl(value: string): string {
  const trimmed = value.trim().replace(/\/+$/, '');
  if (!trimmed) return '';
  return /^https?:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
}
