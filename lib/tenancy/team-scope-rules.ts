/**
 * Team scoping (spec: Authentication > Team scoping), the one rule every
 * domain's loader applies: a record belongs to the caller when its team is
 * the caller's; allowlisted admins reach any team's id-addressed records.
 * Each domain loads its own records (its access-service.ts) and answers 404
 * for both a missing id and another team's, so an id never tells whether it
 * exists elsewhere. List endpoints stay scoped to the caller's own team.
 */
import type { Identity } from '../auth/identity-rules';
import { NotFoundError } from '../errors';

/** Whether the caller may reach a record of team `teamId` by its id. */
export function reachesTeam(identity: Identity, teamId: string): boolean {
  return identity.isAdmin || identity.team.id === teamId;
}

/** The record when the caller may reach it; NotFoundError(`notFound`) when it is missing or another team's. */
export function ownRecordOr404<T extends { team_id: string }>(
  identity: Identity,
  record: T | null | undefined,
  notFound: string,
): T {
  if (!record || !reachesTeam(identity, record.team_id)) throw new NotFoundError(notFound);
  return record;
}
