import { isJobObjectKey } from '../../../lib/jobs/job-object-rules';

describe('isJobObjectKey', () => {
  const job = { team_id: 't1', claim_id: 'c1', id: 'j1' };

  it("takes the job's own folder and its claim's homeowner folder", () => {
    expect(isJobObjectKey(job, 'teams/t1/claims/c1/jobs/j1/photos/orig_0001.jpg')).toBe(true);
    expect(isJobObjectKey(job, 'teams/t1/claims/c1/insured/link/files/f1/photo.png')).toBe(true);
  });

  it("refuses another job's folder, another claim's or team's homeowner folder, and the claim's other objects", () => {
    expect(isJobObjectKey(job, 'teams/t1/claims/c1/jobs/j2/photos/orig_0001.jpg')).toBe(false);
    expect(isJobObjectKey(job, 'teams/t1/claims/c1/jobs/j10/photos/orig_0001.jpg')).toBe(false);
    expect(isJobObjectKey(job, 'teams/t1/claims/c2/insured/link/files/f1/photo.png')).toBe(false);
    expect(isJobObjectKey(job, 'teams/t2/claims/c1/insured/link/files/f1/photo.png')).toBe(false);
    expect(isJobObjectKey(job, 'teams/t1/claims/c1/exports/e1.xlsx')).toBe(false);
    expect(isJobObjectKey(job, 'teams/t1/claims/c1/insured-other/f1.png')).toBe(false);
  });
});
