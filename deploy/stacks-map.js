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
 */
const PerGroupFunction = require('serverless-plugin-split-stacks/lib/migration-strategy/per-group-function');

const CORE_ROOT_RESOURCES = [
  'ServerlessDeploymentBucket',
  'ServerlessDeploymentBucketPolicy',
  'IamRoleLambdaExecution',
  'HttpApi',
  'HttpApiStage',
];

const namesByPlugin = new WeakMap();

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
    return PerGroupFunction.prototype.getNestedStackName.call(
      { nestedStackCount: config.nestedStackCount },
      normalizedName,
    );
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
  const target = route.Properties?.Target;
  const join = target?.['Fn::Join'];
  if (!Array.isArray(join) || !Array.isArray(join[1])) return undefined;
  for (const part of join[1]) {
    const id = referencedId(part);
    if (id) return id;
  }
  return undefined;
}

function lambdaIdOfIntegration(integration) {
  return integration?.Properties ? referencedId(integration.Properties.IntegrationUri) : undefined;
}

function stacksMap(resource, logicalId) {
  const plugin = this && this.plugin;
  if (!plugin) throw new Error('stacks-map.js: expected to be called by serverless-plugin-split-stacks (this.plugin)');
  const customResources = plugin.serverless.service.resources?.Resources || {};
  if (CORE_ROOT_RESOURCES.includes(logicalId) || logicalId in customResources) return false;

  let lambdaId;
  if (resource.Type === 'AWS::ApiGatewayV2::Route') {
    lambdaId = lambdaIdOfIntegration(plugin.resourcesById[integrationIdOfRoute(resource)]);
  } else if (resource.Type === 'AWS::ApiGatewayV2::Integration') {
    lambdaId = lambdaIdOfIntegration(resource);
  } else {
    return undefined; // the built-in strategies decide
  }

  if (!namesByPlugin.has(plugin)) namesByPlugin.set(plugin, normalizedNamesByLambdaId(plugin));
  const normalizedName = namesByPlugin.get(plugin).get(lambdaId);
  const destination = normalizedName && functionDestination(plugin, normalizedName);
  return destination ? { destination } : undefined;
}

module.exports = stacksMap;
