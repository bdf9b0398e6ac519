/**
 * Covers: localstack/runtime/offline-plugin.js keepGroup — which functions each of the
 * local stack's two serverless offline processes keeps: the API's process the
 * functions with routes, the workers' process every other one.
 */
const LocalHandlerBuild = require('../../../../localstack/runtime/offline-plugin.js');
const { functions } = require('../../../../deploy/manifest.js');

function keptBy(group: string | undefined): string[] {
  const service = { functions: structuredClone(functions) };
  new LocalHandlerBuild({ service }, {}, undefined).keepGroup(group);
  return Object.keys(service.functions).sort();
}

const routed = (name: string) => (functions[name].events ?? []).some((event: any) => event.httpApi);

it('gives the routes to the API process and everything else to the workers, each function to exactly one', () => {
  const api = keptBy('api');
  const workers = keptBy('workers');
  expect(api.length).toBeGreaterThan(100);
  expect(api.every(routed)).toBe(true);
  expect(workers).toEqual(
    expect.arrayContaining(['stageWorker', 'unitWorker', 'photoWorker', 'watchdog', 'jobStream']),
  );
  expect(workers.some(routed)).toBe(false);
  expect([...api, ...workers].sort()).toEqual(Object.keys(functions).sort());
});

it('keeps every function without a group (the test stack runs them all in one process)', () => {
  expect(keptBy(undefined)).toEqual(Object.keys(functions).sort());
  expect(keptBy('')).toEqual(Object.keys(functions).sort());
});
