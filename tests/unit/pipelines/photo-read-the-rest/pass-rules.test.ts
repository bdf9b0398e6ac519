/** Which cut-short groups a read-the-rest pass re-reads, and the job's cut-short list after it. */
import { loadSettings, resetSettings } from '../../../../lib/config';
import type { Job, TruncatedGroup } from '../../../../lib/jobs/job-record-rules';
import type { PlannedGroup } from '../../../../lib/pipelines/photo/plan-rules';
import {
  groupsWithPassLeft,
  rereadGroups,
  tooDenseGroups,
  truncatedAfterPass,
} from '../../../../lib/pipelines/photo-read-the-rest/pass-rules';

const cut = (group_index: number, passes: number, names: string[] = []): TruncatedGroup => ({
  group_index,
  passes,
  names,
  too_dense: passes >= 3,
});

const planned = (group_index: number, kind: PlannedGroup['kind'] = 'ai'): PlannedGroup => ({
  group_index,
  kind,
  prompt: 'unmerged',
  is_segment: false,
  photos: [],
  manual_name: kind === 'described' ? 'Piano' : null,
  quantity: null,
  notes: [],
  pass: 1,
  names_found: [],
});

describe('read the rest passes', () => {
  it('re-reads groups under the pass ceiling and calls the others too dense', () => {
    const job = { photo_truncated_groups: [cut(0, 1), cut(2, 3), cut(4, 2)] };
    expect(groupsWithPassLeft(job, 3).map((g) => g.group_index)).toEqual([0, 4]);
    expect(tooDenseGroups(job, 3)).toEqual([2]);
    expect(groupsWithPassLeft({ photo_truncated_groups: [] }, 3)).toEqual([]);
  });

  it('plans one call per wanted AI group, with its next pass number and the names already found', () => {
    const groups = rereadGroups(
      [planned(0), planned(1), planned(2, 'described'), planned(4)],
      [cut(4, 2, ['Lamp']), cut(0, 1, ['Chair', 'Desk']), cut(2, 1)],
    );
    expect(groups.map((g) => [g.group_index, g.pass, g.names_found])).toEqual([
      [0, 2, ['Chair', 'Desk']],
      [4, 3, ['Lamp']],
    ]);
  });

  it('drops answered groups from the cut-short list unless cut short again, and keeps failed ones', () => {
    const before = [cut(0, 1), cut(3, 1), cut(5, 1)];
    const after = truncatedAfterPass(before, new Set([0, 5]), [cut(5, 2, ['Vase'])]);
    expect(after).toEqual([cut(3, 1), cut(5, 2, ['Vase'])]);
  });
});

describe('the pass ceiling', () => {
  const isolated = (env: Record<string, string> = {}) =>
    loadSettings({ env, overrides: {}, dotenvPath: '/nonexistent', machineFilePath: '/nonexistent' });
  const job = { photo_truncated_groups: [cut(0, 1), cut(1, 2), cut(2, 3)] };

  afterEach(() => resetSettings());

  it('is PHOTO_MAX_PASSES, 3 by default, counting the first call', () => {
    resetSettings(isolated());
    expect(groupsWithPassLeft(job).map((g) => g.group_index)).toEqual([0, 1]);
    expect(tooDenseGroups(job)).toEqual([2]);
  });

  it('follows a configured PHOTO_MAX_PASSES', () => {
    resetSettings(isolated({ PHOTO_MAX_PASSES: '2' }));
    expect(groupsWithPassLeft(job).map((g) => g.group_index)).toEqual([0]);
    expect(tooDenseGroups(job)).toEqual([1, 2]);
  });

  it('finds nothing to re-read and nothing too dense on a job that recorded no cut-short group', () => {
    // A row written before the field existed has none.
    const older = { photo_truncated_groups: undefined } as unknown as Pick<Job, 'photo_truncated_groups'>;
    expect(groupsWithPassLeft(older, 3)).toEqual([]);
    expect(tooDenseGroups(older, 3)).toEqual([]);
    expect(tooDenseGroups({ photo_truncated_groups: [] }, 3)).toEqual([]);
  });
});
