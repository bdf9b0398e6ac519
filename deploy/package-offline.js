/**
 * Package-time hooks (`serverless package` and the packaging step of
 * `serverless deploy`; `serverless offline` runs none of them).
 *
 * 1. Refuse what must never reach a deployed stage: APP_ENV=local or a set
 *    LOCAL_AUTH_USER_EMAIL (the local sign-in bypass), and a secret setting in
 *    any function's plain environment.
 * 2. Point the functions whose code reads a secret setting at the stage's
 *    SSM parameter path (SECRETS_PARAMETER_PATH = custom.secretsParameterPath);
 *    they resolve the values at run time (lib/config/secrets.ts). Offline runs
 *    keep reading secrets from the environment, so this is added here and not
 *    in the manifest.
 * 3. Give the functions whose code asks for a team's S3 client the ARN of
 *    the team-objects role (TEAM_OBJECTS_ROLE_ARN, deploy/iam.js). Offline
 *    runs have no STS: without the variable they use their own credentials.
 * 4. Keep packaging offline: serverless-plugin-split-stacks reads the
 *    deployed stack (CloudFormation ListStackResources on the root and every
 *    nested stack) before splitting, so resources that already live in a
 *    nested stack stay there. That needs AWS credentials and the network, and
 *    with the framework's defaults (5 attempts, 120 s socket timeout) it can
 *    hang for minutes where AWS is unreachable. On `serverless package` this
 *    replaces that lookup with "nothing is deployed yet": the layout then
 *    comes only from the deterministic mapping (hash of the function name,
 *    fixed nestedStackCount), which is also what a deployed stack was split
 *    with. `serverless deploy` keeps the lookup. `serverless deploy --package
 *    <dir>` does not split again: it deploys the templates written here.
 *
 * The split-stacks plugin's other package-time request, a HEAD on
 * provider.deploymentBucket to learn its region, only happens when a
 * deploymentBucket is configured; serverless.yml does not configure one.
 */
const SECRETS_PARAMETER_PATH = 'SECRETS_PARAMETER_PATH';
const TEAM_OBJECTS_ROLE_ARN = 'TEAM_OBJECTS_ROLE_ARN';

class PackageOffline {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      'before:package:initialize': () => {
        this.refuseLocalOnlySettings();
        this.pointSecretReadersAtParameterStore();
        this.pointTeamClientsAtTeamObjectsRole();
      },
      'before:aws:package:finalize:mergeCustomProviderResources': () => this.skipDeployedStackLookup(),
    };
  }

  fail(message) {
    const ServerlessError = this.serverless.classes?.Error;
    throw ServerlessError ? new ServerlessError(message, 'CONTENTS_INVENTORY_PACKAGE_REFUSED') : new Error(message);
  }

  refuseLocalOnlySettings() {
    const manifest = require('./manifest.js');
    const { settings } = manifest;
    if (settings.APP_ENV === 'local') {
      this.fail(
        'Refusing to package with APP_ENV=local: local mode (and its sign-in bypass) must never reach a deployed stage. Set APP_ENV to production or stage.',
      );
    }
    if (settings.LOCAL_AUTH_USER_EMAIL) {
      this.fail(
        'Refusing to package with LOCAL_AUTH_USER_EMAIL set: the local sign-in bypass must never reach a deployed stage. Unset LOCAL_AUTH_USER_EMAIL.',
      );
    }
    const { SECRET_SETTING_NAMES } = manifest.loadTypeScript('lib/config/secrets.ts');
    const service = this.serverless.service;
    const exposed = [];
    const scan = (where, environment) => {
      for (const name of Object.keys(environment || {}))
        if (SECRET_SETTING_NAMES.includes(name)) exposed.push(`${where}: ${name}`);
    };
    scan('provider.environment', service.provider.environment);
    for (const name of service.getAllFunctions())
      scan(`functions.${name}.environment`, service.getFunction(name).environment);
    if (exposed.length)
      this.fail(
        `Refusing to package secret settings into plain environments (they belong in SSM Parameter Store): ${exposed.join(', ')}`,
      );
  }

  pointSecretReadersAtParameterStore() {
    const { profiles } = require('./manifest.js');
    const service = this.serverless.service;
    const parameterPath = service.custom?.secretsParameterPath;
    if (!parameterPath) this.fail('serverless.yml: custom.secretsParameterPath is not set');
    for (const name of service.getAllFunctions()) {
      if (!profiles[name]?.readsSecrets) continue;
      const fn = service.getFunction(name);
      fn.environment = { ...(fn.environment || {}), [SECRETS_PARAMETER_PATH]: parameterPath };
    }
  }

  pointTeamClientsAtTeamObjectsRole() {
    const { profiles } = require('./manifest.js');
    const { TEAM_OBJECTS_ROLE } = require('./iam.js');
    const service = this.serverless.service;
    for (const name of service.getAllFunctions()) {
      if (!profiles[name]?.access?.teamObjects) continue;
      const fn = service.getFunction(name);
      fn.environment = {
        ...(fn.environment || {}),
        [TEAM_OBJECTS_ROLE_ARN]: { 'Fn::GetAtt': [TEAM_OBJECTS_ROLE, 'Arn'] },
      };
    }
  }

  skipDeployedStackLookup() {
    const commands = this.serverless.processedInput?.commands || [];
    if (commands[0] !== 'package') return;
    const splitStacks = this.serverless.pluginManager.plugins.find(
      (p) => p.constructor && p.constructor.name === 'ServerlessPluginSplitStacks',
    );
    if (!splitStacks) return;
    splitStacks.migrateExistingResources = function migrateExistingResourcesSkipped() {
      this.existingResources = {};
      this.log('package: deployed stacks not read (no AWS calls); layout from the stacks map only');
      return Promise.resolve();
    };
  }
}

module.exports = PackageOffline;
