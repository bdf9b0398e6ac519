/**
 * The media layers' package hook, apart from deploy/layers.js so that the
 * layers (which deploy/manifest.js reads) and the function manifest (which
 * this hook reads) do not import each other.
 */
const { LAYERS, artifactOf, buildLayers } = require('./layers');
const manifest = require('./manifest');

/**
 * Package hook (listed after package-offline.js, whose refusals come first):
 * checks the layers serverless.yml declares, builds any that is missing or
 * out of date, and sets the binaries' paths on the functions that carry them.
 */
class MediaLayers {
  constructor(serverless, _options, utils) {
    this.serverless = serverless;
    this.log = (message) => (utils?.log?.notice ? utils.log.notice(message) : console.log(message));
    this.hooks = { 'before:package:initialize': () => this.prepare() };
  }

  fail(message) {
    const ServerlessError = this.serverless.classes?.Error;
    throw ServerlessError ? new ServerlessError(message, 'CONTENTS_INVENTORY_MEDIA_LAYERS') : new Error(message);
  }

  async prepare() {
    this.skipDeployedLayerLookup();
    const service = this.serverless.service;
    const declared = service.getAllLayers();
    for (const name of declared) {
      if (!LAYERS[name]) this.fail(`serverless.yml declares layer ${name}, which deploy/layers.js does not build`);
      // A `path` would have serverless zip the layer again on every package; the ready zip is used as it is.
      const layer = service.getLayer(name);
      if (layer.path !== undefined || layer.package?.artifact !== artifactOf(name))
        this.fail(
          `serverless.yml: layer ${name} must have package.artifact ${artifactOf(name)} (where deploy/layers.js builds it) and no path`,
        );
    }
    try {
      await buildLayers(this.serverless.serviceDir, declared, this.log);
    } catch (err) {
      this.fail(`Could not build the media layers (needs the npm registry once per version): ${err.message}`);
    }
    for (const name of service.getAllFunctions()) {
      for (const layer of manifest.profiles[name]?.layers ?? []) {
        if (!declared.includes(layer))
          this.fail(`Function ${name} needs layer ${layer}, which serverless.yml does not declare under layers:`);
        const fn = service.getFunction(name);
        fn.environment = { ...(fn.environment ?? {}), ...(LAYERS[layer].environment ?? {}) };
      }
    }
  }

  /**
   * Before reusing a layer already uploaded with the same hash, the framework
   * reads the deployed stack's outputs (CloudFormation DescribeStacks): that
   * needs AWS, which `serverless package` must not (package-offline.js).
   * `serverless deploy` keeps the lookup, so an unchanged layer is not uploaded again.
   */
  skipDeployedLayerLookup() {
    if (this.serverless.processedInput?.commands?.[0] !== 'package') return;
    const compileLayers = this.serverless.pluginManager.plugins.find((p) => p.constructor?.name === 'AwsCompileLayers');
    if (compileLayers) compileLayers.compareWithLastLayer = async () => {};
  }
}

module.exports = MediaLayers;
