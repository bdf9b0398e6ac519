/**
 * Covers: lib/sends/destination-rules.ts.
 *
 * Each send destination is declared once; this checks the declaration is
 * wired wherever the service relies on it, so a destination added to the
 * registry without one of its parts fails here: its run kind and pipeline are
 * registered with the engine by lib/pipelines (what the workers and the
 * watchdog load), its component is a team feature, its counter a stats
 * counter, its item field part of the item answer, its migration a script.
 */
import '../../../lib/pipelines';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMPONENT_DEFAULTS } from '../../../lib/features/rules';
import { itemResponse } from '../../../lib/inventory/schemas';
import { getPipeline } from '../../../lib/orchestrator/pipeline';
import { runKind } from '../../../lib/orchestrator/run-kinds';
import { SEND_DESTINATIONS } from '../../../lib/sends/destination-rules';
import { TEAM_COUNTERS } from '../../../lib/stats/rules';

const scripts = Object.keys(
  (JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { scripts: Record<string, string> })
    .scripts,
).map((name) => `npm run ${name}`);

it.each(SEND_DESTINATIONS)(
  '$platform is wired into the engine, the features, the stats, the items and the scripts',
  (d) => {
    expect(runKind(d.runKind)?.name).toBe(d.runKind);
    expect(getPipeline(d.pipeline)).toMatchObject({ name: d.pipeline, kind: d.runKind });
    expect(Object.keys(COMPONENT_DEFAULTS)).toContain(d.platform);
    expect(TEAM_COUNTERS).toContain(d.statsCounter);
    expect(Object.keys(itemResponse.shape)).toContain(d.itemSentField);
    if (d.migration) expect(scripts).toContain(d.migration);
  },
);

it('names every destination, run kind and pipeline once', () => {
  for (const field of ['platform', 'runKind', 'pipeline', 'statsCounter', 'itemSentField'] as const)
    expect(new Set(SEND_DESTINATIONS.map((d) => d[field])).size).toBe(SEND_DESTINATIONS.length);
});
