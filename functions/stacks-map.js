'use strict';
/**
 * Custom mapping for serverless-plugin-split-stacks (custom.splitStacks.custom).
 *
 * perGroupFunction already moves every resource whose logical id starts with a
 * function's normalized name (its LogGroup, LambdaFunction, LambdaPermission…,
 * EventSourceMapping…, EventsRule…) into nested stack `<n>NestedStack`, n being
 * a hash of that name. An HTTP API route and integration are named after the
 * path and the function respectively with an `HttpApi…` prefix, so they would
 * stay in the root stack (two resources per endpoint). This mapping sends them
 * to the stack of the function they invoke:
 *
 *   Route.Target = integrations/{Ref Integration} → Integration.IntegrationUri =
 *   {Fn::GetAtt [<Fn>LambdaFunction, Arn]} → the function → its group stack.
 *
 * Shared and stateful resources (the table, bucket, queues declared in
 * serverless.yml, the HTTP API, its stage, the role, the deployment bucket)
 * are pinned to the root stack, so a function name that happens to prefix
 * their logical id can never move them.
 *
 * The plugin calls this function with `this` set to its custom strategy
 * (this.plugin is the plugin instance: resourcesById, config, provider,
 * serverless).
 *
 * The same export is also listed under `plugins:` in serverless.yml: when osls
 * constructs it with `new`, it returns PackageOffline (below), which keeps
 * `serverless package` free of AWS calls.
 */
const PerGroupFunction = require('serverless-plugin-split-stacks/lib/migration-strategy/per-group-function');

const CORE_ROOT_RESOURCES = [
  'ServerlessDeploymentBucket',
  'ServerlessDeploymentBucketPolicy',
  'IamRoleLambdaExecution',
  'HttpApi',
  'HttpApiStage',
];

/** Lambda logical id (FooLambdaFunction) → normalized function name (Foo), as the plugin derives it. */
function normalizedNamesByLambdaId(plugin) {
  const naming = plugin.provider.naming;
  const names = new Map();
  for (const functionName of plugin.serverless.service.getAllFunctions()) {
    names.set(naming.getLambdaLogicalId(functionName), naming.getNormalizedFunctionName(functionName));
  }
  return names;
}

/** The stack name perFunction / perGroupFunction give the function's own resources. */
function functionDestination(plugin, normalizedName) {
  const { config } = plugin;
  if (config.perFunction) return normalizedName;
  if (config.perGroupFunction) {
    return PerGroupFunction.prototype.getNestedStackName.call({ nestedStackCount: config.nestedStackCount }, normalizedName);
  }
  return undefined;
}

/** {Ref: X} or {Fn::GetAtt: [X, …]} or 'X.Arn' → X. */
function referencedId(value) {
  if (!value || typeof value !== 'object') return undefined;
  if (typeof value.Ref === 'string') return value.Ref;
  const getAtt = value['Fn::GetAtt'];
  if (Array.isArray(getAtt)) return getAtt[0];
  if (typeof getAtt === 'string') return getAtt.split('.')[0];
  return undefined;
}

/** Integration logical id from Target: {Fn::Join: ['/', ['integrations', {Ref: Integration}]]}. */
function integrationIdOfRoute(route) {
  const target = route.Properties && route.Properties.Target;
  const join = target && target['Fn::Join'];
  if (!Array.isArray(join) || !Array.isArray(join[1])) return undefined;
  for (const part of join[1]) {
    const id = referencedId(part);
    if (id) return id;
  }
  return undefined;
}

function lambdaIdOfIntegration(integration) {
  return integration && integration.Properties ? referencedId(integration.Properties.IntegrationUri) : undefined;
}

function stacksMap(resource, logicalId) {
  if (new.target) return new PackageOffline(...arguments); // loaded as an osls plugin, see below

  const plugin = this.plugin;
  const customResources = (plugin.serverless.service.resources && plugin.serverless.service.resources.Resources) || {};
  if (CORE_ROOT_RESOURCES.includes(logicalId) || logicalId in customResources) return false;

  let lambdaId;
  if (resource.Type === 'AWS::ApiGatewayV2::Route') {
    lambdaId = lambdaIdOfIntegration(plugin.resourcesById[integrationIdOfRoute(resource)]);
  } else if (resource.Type === 'AWS::ApiGatewayV2::Integration') {
    lambdaId = lambdaIdOfIntegration(resource);
  } else {
    return undefined; // the built-in strategies decide
  }

  plugin.splitStacksNormalizedNames = plugin.splitStacksNormalizedNames || normalizedNamesByLambdaId(plugin);
  const normalizedName = plugin.splitStacksNormalizedNames.get(lambdaId);
  const destination = normalizedName && functionDestination(plugin, normalizedName);
  return destination ? { destination } : undefined;
}

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

module.exports = stacksMap;
module.exports.PackageOffline = PackageOffline;
