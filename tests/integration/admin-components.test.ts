/**
 * Component overrides against the embedded DynamoDB, on a table of their own
 * (a global override set here would otherwise change what every team of the
 * run sees): team override, then global override, then the registry default
 * (spec: Admin components), and null clearing each layer.
 */
import { randomUUID } from 'node:crypto';
import { listComponents, setComponent } from '../../lib/admin/components-service';
import { resetSettings } from '../../lib/config';
import { teamFeatures } from '../../lib/features/store';
import { createTeam } from '../../lib/teams/store';
import { useOwnStage } from '../support/stage';

beforeAll(async () => {
  await useOwnStage('components');
  resetSettings();
});
afterAll(() => resetSettings());

const newTeam = (name: string) =>
  createTeam({ external_id: Math.floor(Math.random() * 1e9), name, team_token: null, estimation_platform_key: null });

describe('component resolution', () => {
  it('applies the team override, then the global one, then the default; null clears each', async () => {
    const [own, other] = await Promise.all([newTeam(`Own ${randomUUID()}`), newTeam(`Other ${randomUUID()}`)]);
    expect((await teamFeatures(own.id)).estimation_platform).toBe(true);

    // Global off: every team without an override follows it.
    await setComponent({ component: 'estimation_platform', team_id: '', visible: false });
    expect((await teamFeatures(own.id)).estimation_platform).toBe(false);
    expect((await teamFeatures(other.id)).estimation_platform).toBe(false);

    // A team override beats the global one, for that team only.
    const table = await setComponent({ component: 'estimation_platform', team_id: own.id, visible: true });
    expect((await teamFeatures(own.id)).estimation_platform).toBe(true);
    expect((await teamFeatures(other.id)).estimation_platform).toBe(false);
    expect(table.components.find((c) => c.component === 'estimation_platform')).toEqual({
      component: 'estimation_platform',
      default: true,
      global: false,
      teams: [{ team_id: own.id, team_name: own.name, visible: true }],
    });

    // Another component of the same team row is set beside it.
    await setComponent({ component: 'training', team_id: own.id, visible: true });
    expect(await teamFeatures(own.id)).toMatchObject({ training: true, estimation_platform: true });

    // Clearing the global override brings the default back for teams without one.
    await setComponent({ component: 'estimation_platform', team_id: '', visible: null });
    expect((await teamFeatures(other.id)).estimation_platform).toBe(true);
    await setComponent({ component: 'estimation_platform', team_id: own.id, visible: false });
    expect((await teamFeatures(own.id)).estimation_platform).toBe(false);
    await setComponent({ component: 'estimation_platform', team_id: own.id, visible: null });
    expect((await teamFeatures(own.id)).estimation_platform).toBe(true);
    // Clearing what was never set is a no-op.
    await setComponent({ component: 'enterprise', team_id: other.id, visible: null });

    const after = await listComponents();
    expect(after.components.find((c) => c.component === 'estimation_platform')).toMatchObject({
      global: null,
      teams: [],
    });
    expect(after.components.find((c) => c.component === 'training')?.teams).toEqual([
      { team_id: own.id, team_name: own.name, visible: true },
    ]);
  });

  it('makes the first overrides of a row once under concurrent writes', async () => {
    const team = await newTeam(`Racing ${randomUUID()}`);
    await Promise.all([
      setComponent({ component: 'training', team_id: team.id, visible: true }),
      setComponent({ component: 'enterprise', team_id: team.id, visible: true }),
      setComponent({ component: 'claims_platform', team_id: team.id, visible: true }),
    ]);
    expect(await teamFeatures(team.id)).toMatchObject({ training: true, enterprise: true, claims_platform: true });
  });
});
