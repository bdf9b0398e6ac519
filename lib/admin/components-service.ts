/**
 * GET and PUT /api/admin/components (spec: Admin; Team feature flags): every
 * toggleable component with its registry default, its global override and
 * its per-team overrides. What a team sees resolves team override, then
 * global override, then default (lib/features/rules.ts).
 */
import { NotFoundError } from '../errors';
import { COMPONENT_DEFAULTS, type Features } from '../features/rules';
import { listComponentOverrides, setComponentOverride } from '../features/store';
import { getTeam } from '../teams/store';
import { getTeamsById } from './store';

export async function listComponents() {
  const rows = await listComponentOverrides();
  const global = rows.find((row) => row.team_id === null)?.visible ?? {};
  const teamRows = rows.filter((row): row is { team_id: string; visible: typeof row.visible } => row.team_id !== null);
  const teams = await getTeamsById(teamRows.map((row) => row.team_id));
  return {
    components: (Object.keys(COMPONENT_DEFAULTS) as Array<keyof Features>).map((component) => ({
      component,
      default: COMPONENT_DEFAULTS[component],
      global: global[component] ?? null,
      teams: teamRows
        .filter((row) => typeof row.visible[component] === 'boolean')
        .map((row) => ({
          team_id: row.team_id,
          team_name: teams.get(row.team_id)?.name ?? null,
          visible: row.visible[component] as boolean,
        }))
        .sort((a, b) => (a.team_name ?? '').localeCompare(b.team_name ?? '') || a.team_id.localeCompare(b.team_id)),
    })),
  };
}

/** Sets (or with null clears) one override; team_id '' is the global one. 404 for a team that does not exist. */
export async function setComponent(body: { component: keyof Features; team_id: string; visible: boolean | null }) {
  if (body.team_id && !(await getTeam(body.team_id))) throw new NotFoundError('No such team');
  await setComponentOverride(body.team_id || null, body.component, body.visible);
  return listComponents();
}
