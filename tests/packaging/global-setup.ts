/**
 * Builds the media layer zips (deploy/layers.js) once for the run, before
 * any test starts: the packaging suites then find them ready, so
 * `serverless package` only hashes them and the network guard never meets a
 * download. On a fresh clone this takes one pass over the npm registry (about
 * 10 s with a warm npm cache); later runs with the same versions only compare
 * the stamps in .layers/.
 */
import path from 'node:path';

const { buildLayers } = require('../../deploy/layers.js');

export default async function globalSetup(): Promise<void> {
  const started = Date.now();
  const results: { built: boolean }[] = await buildLayers(path.join(__dirname, '..', '..'), undefined, console.log);
  if (results.some((r) => r.built)) console.log(`media layers ready in ${Date.now() - started} ms`);
}
