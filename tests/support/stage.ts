/**
 * A deployment stage of its own on the run's shared emulators: its own table,
 * bucket and queues, which the local service (and its schedules, such as the
 * billing sweep) never reads. For suites that run lib code in-process against
 * their own fakes, so nothing of theirs is picked up by the service's workers.
 */
const { provision } = require('../../localstack/provision/provision.js');

export interface OwnStage {
  env: Record<string, string>;
  /** Provisioned resources by logical id (queue URLs as `ref`). */
  resources: Record<string, { ref: string }>;
}

/** Provisions the stage and points this process's settings at it. Call before any lib code reads settings. */
export async function useOwnStage(stage: string, overrides: Record<string, string> = {}): Promise<OwnStage> {
  const { names, resources } = await provision({ stage, env: {} });
  const env = {
    TABLE_NAME: names.table,
    MEDIA_BUCKET: names.bucket,
    QUEUE_NAME_PREFIX: names.queuePrefix,
    FUNCTION_NAME_PREFIX: `contents-inventory-${stage}-`,
    ...overrides,
  };
  Object.assign(process.env, env);
  return { env, resources };
}
