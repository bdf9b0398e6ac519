/**
 * Jest's module runtime (the `runtime` option of jest.config.js), with V8's
 * code cache kept across the test files a worker runs.
 *
 * Jest gives every test file a fresh module registry, so each file compiles
 * the whole graph it imports again (the SDK clients, zod, the domain): about
 * 4 MB of JavaScript for a service test file, and about half of the CPU it
 * takes to load it (0.59 s per file without the cache, 0.29 s with it). Here the first compile of a module in a worker also produces
 * V8's code cache, and later compiles of the same source in that worker hand
 * it back, so V8 skips the parse. Each file still gets its own module
 * instances: only the compiled code is shared, never a module's state. V8
 * checks the cache against the source and falls back to a full compile when
 * it does not match; a changed file (its transformed source differs) just
 * compiles anew.
 *
 * Jest compiles through vm.compileFunction, looked up on the vm module at
 * each call, so the wrapper below sees every compile of this worker.
 */
const vm = require('node:vm');
const Runtime = require('jest-runtime').default;

/** filename → the source compiled and its code cache. */
const codeCache = new Map();
const compileFunction = vm.compileFunction;

vm.compileFunction = function compileWithCodeCache(code, params, options = {}) {
  const filename = options.filename;
  if (!filename || options.cachedData || options.produceCachedData) return compileFunction(code, params, options);
  const cached = codeCache.get(filename);
  if (cached && cached.code === code) return compileFunction(code, params, { ...options, cachedData: cached.data });
  const compiled = compileFunction(code, params, { ...options, produceCachedData: true });
  if (compiled.cachedData) codeCache.set(filename, { code, data: compiled.cachedData });
  return compiled;
};

/**
 * Jest takes the end of a hook or test function for "between tests" and refuses to load a module then. Cases run
 * side by side (it.concurrent) end one by one while the others still run, and a module one of them loaded for the
 * first time after another had ended was refused (tests/unit/project/concurrent-cases.test.ts). Here it is between
 * tests only when no hook or test function is running.
 */
class ConcurrentCasesRuntime extends Runtime {
  running = 0;

  enterTestCode() {
    this.running++;
    super.enterTestCode();
  }

  leaveTestCode() {
    this.running = Math.max(0, this.running - 1);
    if (this.running === 0) super.leaveTestCode();
  }
}

module.exports = ConcurrentCasesRuntime;
