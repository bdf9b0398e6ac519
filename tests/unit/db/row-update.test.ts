/**
 * Covers: lib/db/update.ts (rowUpdateInput), the one builder of a run's row
 * updates (a job's, a claims platform send's).
 */
import { rowUpdateInput } from '../../../lib/db/update';
import { useIsolatedSettings } from '../../support/unit-settings';

useIsolatedSettings({ TABLE_NAME: 'unit-row-update' });

const NOW = new Date('2026-11-29T05:00:00.000Z');
const KEY = { pk: 'SUBMISSION#s-1', sk: 'SUBMISSION' };
const OPEN = { pk: 'SUBMISSIONS#OPEN', id: 's-1', listed: (status: string) => status === 'processing' };

it('sets, adds and conditions one row, stamping updated_at', () => {
  const input = rowUpdateInput(
    KEY,
    {
      set: { stage_name: 'items' },
      add: { fanout_done: 1 },
      expectStatus: ['processing'],
      condition: 'run_id = :run',
      values: { ':run': 'r-1' },
    },
    NOW,
  );
  expect(input.UpdateExpression).toBe(
    'SET #stage_name = :stage_name, #updated_at = :updated_at ADD #fanout_done :add_fanout_done',
  );
  expect(input.ConditionExpression).toBe('attribute_exists(pk) AND #status IN (:es0) AND (run_id = :run)');
  expect(input.ExpressionAttributeValues).toMatchObject({
    ':stage_name': 'items',
    ':updated_at': NOW.toISOString(),
    ':add_fanout_done': 1,
    ':es0': 'processing',
    ':run': 'r-1',
  });
});

it('keeps the row on its open-runs index while its status is listed, by its last activity, and takes it off after', () => {
  const listed = rowUpdateInput(KEY, { set: { status: 'processing' } }, NOW, OPEN);
  expect(listed.ExpressionAttributeValues).toMatchObject({
    ':activepk': 'SUBMISSIONS#OPEN',
    ':activesk': `${NOW.toISOString()}#s-1`,
  });
  const beat = rowUpdateInput(KEY, { set: { heartbeat_at: '2026-11-29T05:01:00.000Z' } }, NOW, OPEN);
  expect(beat.ExpressionAttributeValues?.[':activesk']).toBe('2026-11-29T05:01:00.000Z#s-1');
  const ended = rowUpdateInput(KEY, { set: { status: 'complete' } }, NOW, OPEN);
  expect(ended.UpdateExpression).toContain('REMOVE activepk, activesk');
});

it("refuses a condition's placeholder named like a field it sets, which would overwrite that field's value", () => {
  // The engine's guard names the stage it holds `:stage`; a subject with a field `stage` would have had it overwritten.
  expect(() =>
    rowUpdateInput(
      KEY,
      { set: { stage: null }, condition: 'stage_name = :stage', values: { ':stage': 'request' } },
      NOW,
    ),
  ).toThrow(/:stage is also a field it sets/);
});
