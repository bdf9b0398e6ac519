/**
 * Covers: lib/orchestrator/pipeline-catalog.ts, lib/pipelines/index.ts.
 *
 * The HTTP side starts jobs from the catalog without loading any stage code;
 * the workers run the registered declarations. The two must name the same
 * pipelines with the same first stages.
 */
import { refOf } from '../../../lib/orchestrator/pipeline';
import { PIPELINES } from '../../../lib/pipelines';
import { PIPELINE_CATALOG } from '../../../lib/orchestrator/pipeline-catalog';

describe('pipeline catalog', () => {
  it('starts each registered pipeline the way the HTTP side names it', () => {
    for (const pipeline of PIPELINES) {
      expect(PIPELINE_CATALOG).toContainEqual(refOf(pipeline));
    }
    expect(PIPELINE_CATALOG).toHaveLength(PIPELINES.length);
  });
});
