/**
 * Team settings over real HTTP: prompt settings and automation (auto-approval)
 * settings are per team, shared by teammates, validated (422, nothing
 * written), logged with what changed, and restorable through undo.
 */
import { Client, request } from '../support/api';
import { listKeys, putObject } from '../support/aws';
import { newTeamMember, teammateOf } from '../support/tokens';

const DEFAULT_RULES = {
  enabled: false,
  min_confidence: 0.85,
  require_price: false,
  max_estimated_price: null,
  exclude_name_keywords: [],
};

async function teamIdOf(client: Client): Promise<string> {
  return (await client.get('/api/auth/me')).body.team.id;
}

const settingsKeys = async (client: Client) => listKeys(`team_settings/${await teamIdOf(client)}/`);

async function latestActivity(client: Client, actionType: string) {
  return (await client.get('/api/activity?limit=50')).body.items.find((e: any) => e.action_type === actionType);
}

describe('prompt settings', () => {
  let alice: Client;
  let bob: Client; // Alice's teammate
  let mallory: Client; // another team

  beforeAll(async () => {
    const member = newTeamMember();
    alice = await Client.signIn(member);
    bob = await Client.signIn(teammateOf(member));
    mallory = await Client.signIn(newTeamMember());
  });

  it('a new team gets the built-in defaults, the caps, and no file', async () => {
    const res = await alice.get('/api/settings/prompts');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ merged: null, unmerged: null, presets: [], max_chars: 6000, max_presets: 20 });
    expect(res.body.defaults.merged).toMatch(/exactly one item/);
    expect(res.body.defaults.unmerged).toMatch(/every distinct item/);
    expect(res.body.effective).toEqual(res.body.defaults);
    expect(await settingsKeys(alice)).toEqual([]);
  });

  it('PUT replaces the settings; teammates see them, another team does not', async () => {
    const body = {
      merged: '  Identify the one item shown.  ',
      unmerged: null,
      presets: [{ name: 'Kitchen', merged: 'Kitchen merged', unmerged: 'Kitchen unmerged' }],
    };
    const put = await alice.put('/api/settings/prompts', body);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ merged: 'Identify the one item shown.', unmerged: null, presets: body.presets });
    expect(put.body.effective).toEqual({
      merged: 'Identify the one item shown.',
      unmerged: put.body.defaults.unmerged,
    });

    const got = await bob.get('/api/settings/prompts');
    expect(got.body).toEqual(put.body);
    expect(await settingsKeys(alice)).toEqual([`team_settings/${await teamIdOf(alice)}/prompt_settings.json`]);

    const other = await mallory.get('/api/settings/prompts');
    expect(other.body).toMatchObject({ merged: null, unmerged: null, presets: [] });
    expect(await settingsKeys(mallory)).toEqual([]);
  });

  it('logs what changed with a before snapshot, and undo restores the settings before it', async () => {
    const before = (await alice.get('/api/settings/prompts')).body;
    const body = {
      merged: 'A different merged prompt',
      unmerged: null,
      presets: [...before.presets, { name: 'Garage', merged: 'g merged', unmerged: 'g unmerged' }],
    };
    expect((await bob.put('/api/settings/prompts', body)).status).toBe(200);

    const entry = await latestActivity(alice, 'update_prompt_settings');
    expect(entry).toMatchObject({
      action_label: 'Changed the merged prompt; added preset Garage',
      user_name: bob.claims.user_name,
      restorable: true,
      restored_at: null,
    });
    expect(entry.snapshot.before).toEqual({
      merged: before.merged,
      unmerged: before.unmerged,
      presets: before.presets,
    });
    expect(await latestActivity(mallory, 'update_prompt_settings')).toBeUndefined();

    // Another team cannot undo it.
    expect((await mallory.post(`/api/activity/${entry.id}/restore`)).status).toBe(404);
    const undo = await alice.post(`/api/activity/${entry.id}/restore`);
    expect(undo.status).toBe(200);
    expect((await alice.get('/api/settings/prompts')).body).toEqual(before);
    expect((await alice.post(`/api/activity/${entry.id}/restore`)).status).toBe(409);
  });

  it('a PUT that changes nothing writes no activity', async () => {
    const current = (await alice.get('/api/settings/prompts')).body;
    const lastBefore = (await alice.get('/api/activity?limit=1')).body.items[0];
    const put = await alice.put('/api/settings/prompts', {
      merged: current.merged,
      unmerged: current.unmerged,
      presets: current.presets,
    });
    expect(put.status).toBe(200);
    expect((await alice.get('/api/activity?limit=1')).body.items[0].id).toBe(lastBefore.id);
  });

  describe('invalid input is 422 with per-field errors and writes nothing', () => {
    let fresh: Client; // a team with no settings file
    let freshDefaults: any;

    beforeAll(async () => {
      fresh = await Client.signIn(newTeamMember());
      freshDefaults = (await fresh.get('/api/settings/prompts')).body;
    });

    const preset = (name: string) => ({ name, merged: 'm', unmerged: 'u' });
    it.each([
      ['a prompt over the character cap', { merged: 'x'.repeat(6001) }, 'body.merged', /at most 6000 characters/],
      [
        'a preset text over the character cap',
        { presets: [{ name: 'Big', merged: 'm', unmerged: 'u'.repeat(6001) }] },
        'body.presets.0.unmerged',
        /at most 6000 characters/,
      ],
      [
        '21 presets',
        { presets: Array.from({ length: 21 }, (_, i) => preset(`P${i}`)) },
        'body.presets',
        /at most 20 presets/,
      ],
      [
        'duplicate preset names',
        { presets: [preset('Kitchen'), preset('KITCHEN')] },
        'body.presets.1.name',
        /duplicate preset name/,
      ],
      ['a blank prompt text', { unmerged: '   ' }, 'body.unmerged', /must not be blank/],
      [
        'a blank preset text',
        { presets: [{ name: 'A', merged: '', unmerged: 'u' }] },
        'body.presets.0.merged',
        /must not be blank/,
      ],
      [
        'an over-long preset name',
        { presets: [preset('n'.repeat(81))] },
        'body.presets.0.name',
        /at most 80 characters/,
      ],
      ['an unknown field', { mergd: 'typo' }, 'body', /unrecognized key/i],
    ])('%s', async (_what, body, field, message) => {
      for (const client of [fresh, alice]) {
        const before = (await client.get('/api/settings/prompts')).body;
        const keysBefore = await settingsKeys(client);
        const res = await client.put('/api/settings/prompts', body);
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual(
          expect.arrayContaining([expect.objectContaining({ field, message: expect.stringMatching(message) })]),
        );
        expect((await client.get('/api/settings/prompts')).body).toEqual(before);
        expect(await settingsKeys(client)).toEqual(keysBefore);
      }
      expect((await fresh.get('/api/settings/prompts')).body).toEqual(freshDefaults);
      expect(await settingsKeys(fresh)).toEqual([]);
      expect(await latestActivity(fresh, 'update_prompt_settings')).toBeUndefined();
    });

    it('malformed JSON', async () => {
      const res = await fresh.put('/api/settings/prompts', '{"merged": ');
      expect(res.status).toBe(422);
      expect(await settingsKeys(fresh)).toEqual([]);
    });
  });
});

describe('automation settings', () => {
  let alice: Client;
  let bob: Client;
  let mallory: Client;

  beforeAll(async () => {
    const member = newTeamMember();
    alice = await Client.signIn(member);
    bob = await Client.signIn(teammateOf(member));
    mallory = await Client.signIn(newTeamMember());
  });

  it('a new team gets the defaults (auto-approval off) and no file', async () => {
    const res = await alice.get('/api/settings/automation');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ auto_approve: DEFAULT_RULES });
    expect(await settingsKeys(alice)).toEqual([]);
  });

  it('PUT then GET round-trips; teammates share, another team does not see it', async () => {
    const rules = {
      enabled: true,
      min_confidence: 0.9,
      require_price: true,
      max_estimated_price: 750,
      exclude_name_keywords: ['jewelry', ' Firearm '],
    };
    const put = await alice.put('/api/settings/automation', { auto_approve: rules });
    expect(put.status).toBe(200);
    const expected = { auto_approve: { ...rules, exclude_name_keywords: ['jewelry', 'Firearm'] } };
    expect(put.body).toEqual(expected);
    expect((await bob.get('/api/settings/automation')).body).toEqual(expected);
    expect(await settingsKeys(alice)).toEqual([`team_settings/${await teamIdOf(alice)}/automation_settings.json`]);
    expect((await mallory.get('/api/settings/automation')).body).toEqual({ auto_approve: DEFAULT_RULES });
  });

  it('a settings file that no longer parses reads as the defaults instead of failing', async () => {
    const team = await Client.signIn(newTeamMember());
    const teamId = await teamIdOf(team);
    await putObject(`team_settings/${teamId}/automation_settings.json`, '{"auto_approve": {"min_confidence": 7}}');
    await putObject(`team_settings/${teamId}/prompt_settings.json`, 'not json');
    expect((await team.get('/api/settings/automation')).body).toEqual({ auto_approve: DEFAULT_RULES });
    expect((await team.get('/api/settings/prompts')).body).toMatchObject({ merged: null, unmerged: null, presets: [] });
    // Saving over it works and is what is read from then on.
    expect((await team.put('/api/settings/automation', { auto_approve: { enabled: true } })).status).toBe(200);
    expect((await team.get('/api/settings/automation')).body.auto_approve.enabled).toBe(true);
  });

  it('fields left out take their defaults (a full replace)', async () => {
    const put = await bob.put('/api/settings/automation', { auto_approve: { enabled: true, min_confidence: 0.7 } });
    expect(put.body).toEqual({ auto_approve: { ...DEFAULT_RULES, enabled: true, min_confidence: 0.7 } });
  });

  it('logs the change with a before snapshot; undo restores the rules before it', async () => {
    const before = (await alice.get('/api/settings/automation')).body;
    const put = await alice.put('/api/settings/automation', {
      auto_approve: { ...before.auto_approve, enabled: false, exclude_name_keywords: ['art'] },
    });
    expect(put.status).toBe(200);
    const entry = await latestActivity(bob, 'update_automation_settings');
    expect(entry).toMatchObject({
      action_label: 'Auto-approval settings: turned off auto-approval; excluded keywords added: art',
      restorable: true,
    });
    expect(entry.snapshot.before).toEqual(before);
    expect((await bob.post(`/api/activity/${entry.id}/restore`)).status).toBe(200);
    expect((await alice.get('/api/settings/automation')).body).toEqual(before);
  });

  it.each([
    ['min_confidence above 1', { auto_approve: { min_confidence: 1.5 } }, 'body.auto_approve.min_confidence'],
    ['min_confidence below 0', { auto_approve: { min_confidence: -0.2 } }, 'body.auto_approve.min_confidence'],
    ['min_confidence as text', { auto_approve: { min_confidence: 'high' } }, 'body.auto_approve.min_confidence'],
    [
      'a negative price ceiling',
      { auto_approve: { max_estimated_price: -1 } },
      'body.auto_approve.max_estimated_price',
    ],
    [
      '51 keywords',
      { auto_approve: { exclude_name_keywords: Array.from({ length: 51 }, (_, i) => `k${i}`) } },
      'body.auto_approve.exclude_name_keywords',
    ],
    [
      'a keyword over 60 characters',
      { auto_approve: { exclude_name_keywords: ['k'.repeat(61)] } },
      'body.auto_approve.exclude_name_keywords.0',
    ],
    ['a missing body', undefined, 'body'],
  ])('%s is 422 and writes nothing', async (_what, body, field) => {
    const fresh = await Client.signIn(newTeamMember());
    for (const client of [fresh, alice]) {
      const before = (await client.get('/api/settings/automation')).body;
      const keysBefore = await settingsKeys(client);
      const res = await client.put('/api/settings/automation', body);
      expect(res.status).toBe(422);
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
      expect((await client.get('/api/settings/automation')).body).toEqual(before);
      expect(await settingsKeys(client)).toEqual(keysBefore);
    }
    expect(await settingsKeys(fresh)).toEqual([]);
    expect(await latestActivity(fresh, 'update_automation_settings')).toBeUndefined();
  });
});

describe('without a token', () => {
  it.each([
    ['GET', '/api/settings/prompts'],
    ['PUT', '/api/settings/prompts'],
    ['GET', '/api/settings/automation'],
    ['PUT', '/api/settings/automation'],
  ])('%s %s is 401', async (method, path) => {
    const res = await request(
      method,
      path,
      method === 'PUT' ? { body: { merged: 'x', auto_approve: { enabled: true } } } : {},
    );
    expect(res.status).toBe(401);
  });
});
