/** Users as the API shows them. */
import type { User } from './user-record-rules';

/** A user as the API shows them. */
export function userView(user: User) {
  return {
    id: user.id,
    external_id: user.external_id,
    name: user.name,
    email: user.email,
    team_id: user.team_id,
    last_seen_at: user.last_seen_at,
    timezone: user.timezone ?? '',
  };
}
