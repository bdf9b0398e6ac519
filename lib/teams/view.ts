/** Teams as the API shows them: secrets masked. */
import type { Team } from './team-record-rules';

/** The team token is masked wherever it is displayed: last four characters only. */
export function maskSecret(value: string | null | undefined): string | null {
  if (!value) return null;
  if (value.length <= 4) return '****';
  return `${'*'.repeat(Math.min(12, value.length - 4))}${value.slice(-4)}`;
}

/** A team as the API shows it: the token and estimation key masked. */
export function publicTeam(team: Team) {
  return {
    id: team.id,
    external_id: team.external_id,
    name: team.name,
    team_token: maskSecret(team.team_token),
    estimation_platform_key: maskSecret(team.estimation_platform_key),
    credit_rate: team.credit_rate,
  };
}
