'use strict';
/**
 * serverless-plugin-split-stacks reads the deployed stack (CloudFormation
 * ListStackResources on the root and every nested stack) before splitting, so
 * resources that already live in a nested stack stay there. That needs AWS
 * credentials and the network, and with the framework's defaults (5 attempts,
 * 120 s socket timeout) it can hang for minutes where AWS is unreachable.
 *
 * On `serverless package` this plugin replaces that lookup with "nothing is
 * deployed yet": the layout then comes only from the deterministic mapping
 * (hash of the function name, fixed nestedStackCount), which is also what a
 * deployed stack was split with. `serverless deploy` keeps the lookup.
 * `serverless deploy --package <dir>` does not split again: it deploys the
 * templates written here.
 *
 * The plugin's other package-time request, a HEAD on provider.deploymentBucket
 * to learn its region, only happens when a deploymentBucket is configured;
 * serverless.yml does not configure one.
 */
class PackageOffline {
  constructor(serverless) {
    this.serverless = serverless;
    this.hooks = {
      'before:aws:package:finalize:mergeCustomProviderResources': () => this.skipDeployedStackLookup(),
    };
  }

  skipDeployedStackLookup() {
    const commands = (this.serverless.processedInput && this.serverless.processedInput.commands) || [];
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
