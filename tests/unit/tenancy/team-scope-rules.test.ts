/** Covers: lib/tenancy/team-scope-rules.ts (the one team scoping rule every domain's loader applies). */
import type { Identity } from '../../../lib/auth/identity-rules';
import { NotFoundError } from '../../../lib/errors';
import { ownRecordOr404, reachesTeam } from '../../../lib/tenancy/team-scope-rules';

const caller = (teamId: string, isAdmin = false) => ({ team: { id: teamId }, isAdmin }) as unknown as Identity;

describe('reachesTeam', () => {
  it("reaches the caller's own team only", () => {
    expect(reachesTeam(caller('team-a'), 'team-a')).toBe(true);
    expect(reachesTeam(caller('team-a'), 'team-b')).toBe(false);
  });

  it("lets an allowlisted admin reach any team's records", () => {
    expect(reachesTeam(caller('team-a', true), 'team-b')).toBe(true);
  });
});

describe('ownRecordOr404', () => {
  const record = { id: 'r1', team_id: 'team-a' };

  it("answers the caller's own record", () => {
    expect(ownRecordOr404(caller('team-a'), record, 'Room not found')).toBe(record);
  });

  it("refuses a missing record and another team's alike: the same 404 and message", () => {
    for (const found of [null, undefined, record]) {
      const attempt = () => ownRecordOr404(caller('team-b'), found, 'Room not found');
      expect(attempt).toThrow(NotFoundError);
      expect(attempt).toThrow('Room not found');
    }
  });

  it("gives an admin another team's record", () => {
    expect(ownRecordOr404(caller('team-b', true), record, 'Room not found')).toBe(record);
  });
});
