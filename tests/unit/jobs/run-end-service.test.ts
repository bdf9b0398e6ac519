/**
 * Run ends reach every subscriber once, in the order they were registered,
 * whatever one of them does: a subscriber that throws is logged, and neither
 * the others nor the publishing engine see its error.
 */
import type { Job } from '../../../lib/jobs/job-record-rules';
import { publishRunEnd, subscribeToRunEnds } from '../../../lib/jobs/run-end-service';
import { logger } from '../../../lib/observability/logger';

const job = { id: 'job-1', team_id: 'team-1' } as Job;

describe('run ends', () => {
  it('hands the end to every subscriber in turn, past one that throws', async () => {
    const heard: string[] = [];
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    subscribeToRunEnds('first', (end) => {
      heard.push(`first:${end.outcome}`);
    });
    subscribeToRunEnds('broken', () => {
      throw new Error('counter table unreachable');
    });
    subscribeToRunEnds('last', async (end) => {
      heard.push(`last:${end.outcome}:${end.credits}`);
    });

    await expect(publishRunEnd({ job, outcome: 'complete', credits: 3 })).resolves.toBeUndefined();

    expect(heard).toEqual(['first:complete', 'last:complete:3']);
    expect(warn).toHaveBeenCalledWith(
      expect.stringContaining('subscriber failed'),
      expect.objectContaining({ subscriber: 'broken', job_id: 'job-1', error: 'Error: counter table unreachable' }),
    );
  });

  it('replaces a subscriber registered again under its name (a module loaded twice subscribes once)', async () => {
    let calls = 0;
    subscribeToRunEnds('counted', () => {
      calls++;
    });
    subscribeToRunEnds('counted', () => {
      calls++;
    });
    await publishRunEnd({ job, outcome: 'error', error: 'boom' });
    expect(calls).toBe(1);
  });
});
