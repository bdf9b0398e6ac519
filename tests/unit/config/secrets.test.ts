/**
 * Secret settings from SSM Parameter Store (lib/config/secrets.ts): fetched
 * once under SECRETS_PARAMETER_PATH, cached, merged over the environment and
 * checked like every other setting; without the path the environment is used.
 */
import { GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import {
  ConfigError,
  loadSecrets,
  loadSettings,
  resetSettings,
  settings,
  SECRET_SETTING_NAMES,
  settingsSchema,
} from '../../../lib/config';
import { resetSecretsProvider } from '../../../lib/config/secrets';

const ssm = mockClient(SSMClient);
const PATH = '/contents-inventory/unit';
const JWT = 'ssm-jwt-secret-0123456789abcdefghijklmnop';
const NO_FILES = { MACHINE_SETTINGS_FILE: '/nonexistent/settings.env', DOTENV_FILE: '/nonexistent/.env' };

function parameters(values: Record<string, string>) {
  return {
    Parameters: Object.entries(values).map(([name, value]) => ({
      Name: `${PATH}/${name}`,
      Value: value,
      Type: 'SecureString' as const,
    })),
  };
}

beforeEach(() => {
  ssm.reset();
  resetSecretsProvider();
  resetSettings();
});
afterAll(() => resetSettings());

describe('loadSecrets', () => {
  it('reads the secret settings under SECRETS_PARAMETER_PATH, decrypted, and merges them into settings()', async () => {
    ssm.on(GetParametersByPathCommand).resolves(
      parameters({
        CLAIMS_PLATFORM_JWT_SECRET: JWT,
        OPENROUTER_API_KEY: 'ssm-openrouter',
        OPENROUTER_MODEL: 'not-a-secret',
      }),
    );
    const env = {
      ...NO_FILES,
      SECRETS_PARAMETER_PATH: PATH,
      OPENROUTER_MODEL: 'env-model',
      OPENROUTER_API_KEY: 'env-openrouter',
    };
    await loadSecrets(env);
    expect(ssm).toHaveReceivedCommandWith(GetParametersByPathCommand, { Path: PATH, WithDecryption: true });
    expect(settings().CLAIMS_PLATFORM_JWT_SECRET).toBe(JWT);
    expect(settings().OPENROUTER_API_KEY).toBe('ssm-openrouter');
    // Only secret settings come from the parameter path; the rest keeps its layers.
    expect(settings().OPENROUTER_MODEL).toBe('env-model');
  });

  it('calls SSM once per container while the cache is fresh', async () => {
    ssm.on(GetParametersByPathCommand).resolves(parameters({ CLAIMS_PLATFORM_JWT_SECRET: JWT }));
    const env = { ...NO_FILES, SECRETS_PARAMETER_PATH: PATH };
    await loadSecrets(env);
    await loadSecrets(env);
    await loadSecrets(env);
    expect(ssm).toHaveReceivedCommandTimes(GetParametersByPathCommand, 1);
    expect(settings().CLAIMS_PLATFORM_JWT_SECRET).toBe(JWT);
  });

  it('keeps the plain environment when no parameter path is set (npm start, tests)', async () => {
    const env = { ...NO_FILES, OPENROUTER_API_KEY: 'env-openrouter', CLAIMS_PLATFORM_JWT_SECRET: JWT };
    const fromEnvironment = loadSettings({ env });
    resetSettings(fromEnvironment);
    await loadSecrets(env);
    expect(ssm).toHaveReceivedCommandTimes(GetParametersByPathCommand, 0);
    expect(settings()).toBe(fromEnvironment);
    expect(settings().OPENROUTER_API_KEY).toBe('env-openrouter');
    expect(settings().CLAIMS_PLATFORM_JWT_SECRET).toBe(JWT);
  });

  it('refuses a login secret from SSM shorter than 32 bytes outside APP_ENV=local', async () => {
    ssm.on(GetParametersByPathCommand).resolves(parameters({ CLAIMS_PLATFORM_JWT_SECRET: 'short' }));
    const err = await loadSecrets({ ...NO_FILES, SECRETS_PARAMETER_PATH: PATH, APP_ENV: 'production' }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.map((p) => p.variable)).toEqual(['CLAIMS_PLATFORM_JWT_SECRET']);
    expect((err as Error).message).not.toContain('short');
  });

  it('fails the cold start when SSM cannot be read, instead of running without secrets', async () => {
    ssm.on(GetParametersByPathCommand).rejects(new Error('AccessDeniedException'));
    await expect(loadSecrets({ ...NO_FILES, SECRETS_PARAMETER_PATH: PATH })).rejects.toThrow();
  });
});

describe('SECRET_SETTING_NAMES', () => {
  it('names settings that exist, every key, token, secret and signing key among them', () => {
    const names = Object.keys(settingsSchema.shape);
    for (const name of SECRET_SETTING_NAMES) expect(names).toContain(name);
    const looksSecret = names.filter((n) => /(SECRET|API_KEY|TOKEN|SIGNING_KEY|WEBHOOK_URL)$/.test(n));
    expect([...SECRET_SETTING_NAMES].sort()).toEqual(expect.arrayContaining(looksSecret.sort()));
  });
});
