/**
 * Package hook (serverless.yml's bundling plugin for `serverless package`
 * and deploy): every function gets its own self-contained bundle, made with
 * custom.esbuild's settings by esbuild passes of 20 handlers each (each
 * handler an entry point, no code splitting), and zipped alone as the
 * function's artifact: the handler file at the path its `handler` names.
 *
 * One build per function (what the serverless-esbuild plugin did) parsed the
 * code every function shares (the SDK clients, the domain) once per
 * function, ~165 times: about five minutes on 2 cores. A pass parses it once
 * for its 20 handlers; all of them in one pass was no faster and held ~9 GB,
 * where a pass of 20 holds ~2 GB (measured on 165 functions: 43 s).
 * The local stack runs a shared, split build instead (localstack/runtime/handler-build.js).
 */
const fs = require('node:fs');
const path = require('node:path');
const { zipFiles } = require('./zip-directory');

/**
 * The child process a function that reads PDFs runs each document in
 * (lib/pdf/sandbox.ts): bundled like a handler and zipped beside the handler
 * of every function with the pdfjs layer, where PDF_SANDBOX_ENTRY's default
 * finds it under the function's root.
 */
const PDF_SANDBOX = 'functions/sandbox/pdf-reader';

/** Handlers bundled by one esbuild pass: its memory grows with the bundles it holds (~100 MB each). */
const HANDLERS_PER_PASS = 20;

/** custom.esbuild keys that are esbuild options, passed through as they are. */
const ESBUILD_OPTIONS = ['bundle', 'minify', 'sourcemap', 'target', 'platform', 'format', 'mainFields', 'external'];

class PackageBundles {
  constructor(serverless, options, utils) {
    this.serverless = serverless;
    this.options = options;
    this.log = (message) => (utils?.log?.notice ? utils.log.notice(message) : console.log(message));
    this.hooks = {
      'before:package:createDeploymentArtifacts': () =>
        this.packageFunctions(this.serverless.service.getAllFunctions()),
      'before:deploy:function:packageFunction': () => this.packageFunctions([this.options.function]),
    };
  }

  fail(message) {
    const ServerlessError = this.serverless.classes?.Error;
    throw ServerlessError ? new ServerlessError(message, 'CONTENTS_INVENTORY_BUNDLES') : new Error(message);
  }

  /** The handler's module path without extension (functions/api/claims/get-claim), checked to exist as .ts. */
  entryOf(serviceDir, name) {
    const { handler } = this.serverless.service.getFunction(name);
    const module = handler.slice(0, handler.lastIndexOf('.'));
    if (!fs.existsSync(path.join(serviceDir, `${module}.ts`)))
      this.fail(`function ${name}: its handler ${handler} has no ${module}.ts`);
    return module;
  }

  async packageFunctions(names) {
    const service = this.serverless.service;
    const serviceDir = this.serverless.serviceDir ?? this.serverless.config.servicePath;
    const settings = service.custom?.esbuild ?? {};
    const modules = new Map(names.map((name) => [name, this.entryOf(serviceDir, name)]));
    const { profiles } = require('./manifest.js');
    const readsPdfs = (name) => Boolean(profiles[name]?.layers.includes('pdfjs'));
    const buildDir = path.join(serviceDir, '.esbuild', 'package');
    // Serverless keeps artifacts in the service's .serverless and moves them to --package at the end.
    const artifactDir = '.serverless';
    fs.rmSync(buildDir, { recursive: true, force: true });
    fs.mkdirSync(path.join(serviceDir, artifactDir), { recursive: true });

    const started = Date.now();
    const entries = [...new Set([...modules.values(), ...(names.some(readsPdfs) ? [PDF_SANDBOX] : [])])];
    const passes = Math.ceil(entries.length / HANDLERS_PER_PASS);
    this.log(`bundling ${names.length} functions (${entries.length} handler files) in ${passes} esbuild passes…`);
    const options = Object.fromEntries(
      ESBUILD_OPTIONS.filter((key) => key in settings).map((key) => [key, settings[key]]),
    );
    try {
      for (let first = 0; first < entries.length; first += HANDLERS_PER_PASS)
        await require('esbuild').build({
          ...options,
          entryPoints: entries
            .slice(first, first + HANDLERS_PER_PASS)
            .map((module) => path.join(serviceDir, `${module}.ts`)),
          outdir: buildDir,
          outbase: serviceDir,
          absWorkingDir: serviceDir,
          logLevel: 'warning',
          // Fault points (lib/faults) are for the local and test stacks: defined off, their armed code is left out.
          define: { 'process.env.FAULT_POINTS': '"off"' },
        });
      let total = 0;
      for (const [name, module] of modules) {
        const artifact = path.join(artifactDir, `${name}.zip`);
        const files = [`${module}.js`, ...(readsPdfs(name) ? [`${PDF_SANDBOX}.js`] : [])];
        await zipFiles(buildDir, files, path.join(serviceDir, artifact));
        total += fs.statSync(path.join(serviceDir, artifact)).size;
        service.getFunction(name).package = { artifact };
      }
      this.log(
        `bundled and zipped ${names.length} functions in ${((Date.now() - started) / 1000).toFixed(1)} s (${(total / 1024 / 1024).toFixed(1)} MB of zips)`,
      );
    } finally {
      fs.rmSync(buildDir, { recursive: true, force: true });
    }
  }
}

module.exports = PackageBundles;
