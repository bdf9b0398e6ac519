/** The record of a new job: what it takes from its input and what every new job starts with. */
import { newJobRecord } from '../../../lib/jobs/job-record-rules';

const room = { id: 'room-1', claim_id: 'claim-1', team_id: 'team-1' };

describe('newJobRecord', () => {
  it('places the job in its room, claim and team, and starts every counter at zero', () => {
    const now = new Date('2026-11-23T10:00:00.000Z');
    const job = newJobRecord({ room, userId: 'user-1', sourceType: 'photo', status: 'awaiting_grouping' }, now);
    expect(job).toMatchObject({
      room_id: 'room-1',
      claim_id: 'claim-1',
      team_id: 'team-1',
      created_by_user_id: 'user-1',
      source_type: 'photo',
      status: 'awaiting_grouping',
      current_stage: 'awaiting_grouping',
      progress_pct: 0,
      media_key: null,
      original_filename: null,
      file_size_bytes: 0,
      duration: null,
      transcript: null,
      items_found: 0,
      billing_charged: false,
      recovery_attempts: 0,
      stage_timings: {},
      run_id: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    });
    expect(job.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps the id, file and size it is given', () => {
    const job = newJobRecord({
      room,
      userId: 'user-1',
      sourceType: 'video',
      status: 'awaiting_confirmation',
      id: 'job-1',
      mediaKey: 'teams/t/claims/c/jobs/job-1/media/walk.mp4',
      originalFilename: 'walk.mp4',
      fileSizeBytes: 1234,
    });
    expect(job).toMatchObject({
      id: 'job-1',
      media_key: 'teams/t/claims/c/jobs/job-1/media/walk.mp4',
      original_filename: 'walk.mp4',
      file_size_bytes: 1234,
    });
  });
});
