/**
 * Secret settings: declared once here, never written into a function's plain
 * environment or into the CloudFormation template.
 *
 * In a deployed stage each secret is a SecureString parameter
 *   /contents-inventory/<stage>/<NAME>
 * and the functions get only the path, as SECRETS_PARAMETER_PATH. The entry
 * points (HTTP middy stack, SQS worker wrapper, schedules, the job stream)
 * await loadSecrets() before their handler runs; the values are read with
 * one GetParametersByPath call per container, cached for SECRETS_MAX_AGE_SECONDS
 * (Powertools Parameters), then merged over the other settings as the highest
 * layer. Without SECRETS_PARAMETER_PATH (npm start, tests) the environment and
 * the setting files keep supplying them, as before.
 */
import { SSMProvider } from '@aws-lambda-powertools/parameters/ssm';
import type { Settings } from './schema';

export const SECRET_SETTING_NAMES = [
  'CLAIMS_PLATFORM_JWT_SECRET',
  'CLAIMS_PLATFORM_BEARER_TOKEN',
  'BILLING_APP_API_KEY',
  'OPENROUTER_API_KEY',
  'TRANSCRIPTION_API_KEY',
  'ESTIMATION_PLATFORM_SSO_SECRET',
  'CAPTURE_SOURCE_WEBHOOK_SECRET',
  'MAIL_API_KEY',
  'MAIL_WEBHOOK_SIGNING_KEY',
  // The webhook URL embeds its own credential.
  'CHAT_WEBHOOK_URL',
  // Outbound signals: the collector's auth header, the analytics project key, the DSN's key.
  'OTEL_EXPORTER_OTLP_HEADERS',
  'POSTHOG_API_KEY',
  'SENTRY_DSN',
  // The key of the hashes job, team and other ids leave as (ids open media without a session).
  'SIGNALS_ID_KEY',
  // The local bypass team's credentials (the local demo of the sends): credentials all the same.
  'LOCAL_AUTH_TEAM_TOKEN',
  'LOCAL_AUTH_ESTIMATION_KEY',
] as const satisfies readonly (keyof Settings)[];

export type SecretSettingName = (typeof SECRET_SETTING_NAMES)[number];

const SECRET_NAMES: ReadonlySet<string> = new Set(SECRET_SETTING_NAMES);

export function isSecretSetting(name: string): name is SecretSettingName {
  return SECRET_NAMES.has(name);
}

/** The variable that tells a deployed function where its secrets live. */
export const SECRETS_PARAMETER_PATH_VARIABLE = 'SECRETS_PARAMETER_PATH';

/** Rotated values reach running containers within this many seconds. */
const SECRETS_MAX_AGE_SECONDS = 300;

let provider: SSMProvider | undefined;

/**
 * The secret settings stored under `path` (SecureString, decrypted). Names
 * under the path that are not secret settings are ignored; a secret with no
 * parameter is simply absent (it then keeps its environment value or default).
 */
export async function fetchSecrets(path: string): Promise<Partial<Record<SecretSettingName, string>>> {
  provider ??= new SSMProvider();
  const values = (await provider.getMultiple(path, { decrypt: true, maxAge: SECRETS_MAX_AGE_SECONDS })) as
    | Record<string, string>
    | undefined;
  const secrets: Partial<Record<SecretSettingName, string>> = {};
  for (const [name, value] of Object.entries(values ?? {})) {
    if (isSecretSetting(name) && typeof value === 'string') secrets[name] = value;
  }
  return secrets;
}

/** Tests only: forget the provider and its cache. */
export function resetSecretsProvider(): void {
  provider = undefined;
}
