/**
 * Settings for a unit test file that must not read the machine's settings
 * file, a .env or the environment: only `overrides` on top of the defaults,
 * set before the file's tests and put back after them.
 */
import { loadSettings, resetSettings } from '../../lib/config';
import type { SettingsInput } from '../../lib/config';

export function useIsolatedSettings(overrides: SettingsInput): void {
  beforeAll(() =>
    resetSettings(loadSettings({ env: {}, overrides, dotenvPath: '/nonexistent', machineFilePath: '/nonexistent' })),
  );
  afterAll(() => resetSettings());
}
