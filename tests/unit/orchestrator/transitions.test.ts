/**
 * Covers: lib/orchestrator/transitions.ts (the stage and unit messages of
 * every run kind). A job's messages name the job as `job_id` and no kind, as
 * they did before there were kinds, so a message queued on either side of a
 * deploy is read by the other; another kind's name their kind and subject.
 */
import { stageMessage, unitMessage } from '../../../lib/orchestrator/transitions';

const ID = '3f1c9a4e-8a51-4f7c-9a59-0d6a7c0b2e11';

it("reads a job's message, with or without a kind, as the job kind's", () => {
  expect(stageMessage.parse({ job_id: ID, run_id: 'r-1', stage: 'analyze' })).toEqual({
    kind: 'job',
    id: ID,
    run_id: 'r-1',
    stage: 'analyze',
  });
  expect(unitMessage.parse({ job_id: ID, run_id: 'r-1', stage: 'extract', branch: 'frames', index: 3 })).toEqual({
    kind: 'job',
    id: ID,
    run_id: 'r-1',
    stage: 'extract',
    branch: 'frames',
    index: 3,
  });
});

it("reads another kind's message by its kind and subject", () => {
  expect(unitMessage.parse({ kind: 'claims-send', id: ID, run_id: 'r-2', stage: 'items', index: 0 })).toEqual({
    kind: 'claims-send',
    id: ID,
    run_id: 'r-2',
    stage: 'items',
    index: 0,
  });
});

it('refuses a message that names no subject, or one that is not an id', () => {
  expect(stageMessage.safeParse({ run_id: 'r-1', stage: 'a' }).success).toBe(false);
  expect(stageMessage.safeParse({ kind: 'claims-send', id: 'not-an-id', run_id: 'r-1', stage: 'a' }).success).toBe(
    false,
  );
  expect(unitMessage.safeParse({ job_id: ID, run_id: 'r-1', stage: 'a', index: -1 }).success).toBe(false);
});
