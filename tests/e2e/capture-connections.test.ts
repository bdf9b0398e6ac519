/**
 * The capture source connection and browse proxy over HTTP against the run's
 * fake capture source: connect with a good and a refused token (the token
 * never answered), replace, list, browse teams, assignments, tree and media
 * page by page with the presigned thumbnails passing through, a revoked
 * stored token (409), unknown ids (404), a capture source failing (502),
 * another team (404) and disconnect.
 */
import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { settings } from '../../lib/config';
import { openCaptureSource } from '../../lib/imports/capture/service';
import { UnavailableError } from '../../lib/errors';
import { Client } from '../support/api';
import { fakeCaptureSource } from '../support/fake-capture-source';
import { newTeamMember } from '../support/tokens';

const capture = fakeCaptureSource(process.env.TEST_FAKE_CAPTURE_SOURCE_URL as string);

async function seededOrg() {
  const org = await capture.seedOrg({ name: `Field Org ${randomUUID().slice(0, 4)}`, teams: [{ name: 'North crew' }] });
  const team = org.teams[0];
  const assignment = await capture.seedAssignment({
    org_id: org.org_id,
    team_id: team.id,
    reference: `CLM-${randomUUID().slice(0, 6)}`,
    title: '12 Elm Street',
    locations: [
      { name: 'Kitchen', groups: [{ name: 'Fridge' }] },
      { name: 'Garage', groups: [] },
    ],
  });
  const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
    .jpeg()
    .toBuffer();
  const kitchen = assignment.locations[0];
  const media = await capture.seedMedia(
    org.org_id,
    assignment.id,
    Array.from({ length: 53 }, (_, i) => ({
      type: 'photo' as const,
      location_id: kitchen.id,
      group_id: i < 2 ? kitchen.groups[0].id : null,
      filename: `IMG_${i}.jpg`,
      bytes: jpeg,
    })),
  );
  return { org, team, assignment, media, token: org.tokens[0] };
}

describe('capture source connections', () => {
  it('connects with a checked token that is never answered, replaces it, browses, and disconnects', async () => {
    const alice = await Client.signIn(newTeamMember());
    const { org, team, assignment, media, token } = await seededOrg();

    const empty = await alice.get('/api/integrations/connections');
    expect(empty.body).toEqual({ connections: [], contents_capture_available: true });

    const refused = await alice.post('/api/integrations/capture-source/connect', { api_token: 'not-a-real-token' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual([{ field: 'body.api_token', message: expect.stringContaining('refused') }]);
    expect((await alice.get('/api/integrations/connections')).body.connections).toEqual([]);

    const connected = await alice.post('/api/integrations/capture-source/connect', { api_token: ` ${token} ` });
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({
      provider: 'capture_source',
      external_account_id: org.org_id,
      external_account_name: org.name,
      replaced: false,
    });
    const listed = await alice.get('/api/integrations/connections');
    expect(listed.body.connections).toEqual([expect.objectContaining({ id: connected.body.id })]);
    expect(JSON.stringify([connected.body, listed.body])).not.toContain(token);
    const [whoami] = await capture.requests({ token, match: 'GET /v1/whoami' });
    expect(whoami.status).toBe(200);

    // Connecting again replaces the connection (same id) with the new token.
    const second = (await capture.seedOrg({ org_id: org.org_id, tokens: [`tok-${randomUUID()}`] })).tokens.at(-1)!;
    const replaced = await alice.post('/api/integrations/capture-source/connect', { api_token: second });
    expect(replaced.body).toMatchObject({ id: connected.body.id, replaced: true });
    const id = connected.body.id as string;
    const base = `/api/integrations/connections/${id}`;

    const teams = await alice.get(`${base}/teams`);
    expect(teams.body).toEqual({ data: [{ id: team.id, name: 'North crew' }], next_cursor: null });
    const assignments = await alice.get(`${base}/teams/${team.id}/assignments`);
    expect(assignments.body.data).toEqual([
      expect.objectContaining({ id: assignment.id, reference: assignment.reference, title: '12 Elm Street' }),
    ]);
    const tree = await alice.get(`${base}/teams/${team.id}/assignments/${assignment.id}/tree`);
    expect(tree.body.locations.map((l: any) => [l.name, l.groups.map((g: any) => g.name)])).toEqual([
      ['Kitchen', ['Fridge']],
      ['Garage', []],
    ]);
    // Media a page at a time, the cursor passed through; the thumbnails are the capture source's own URLs.
    const first = await alice.get(`${base}/teams/${team.id}/assignments/${assignment.id}/media`);
    expect(first.body.data).toHaveLength(50);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const rest = await alice.get(
      `${base}/teams/${team.id}/assignments/${assignment.id}/media?cursor=${encodeURIComponent(first.body.next_cursor)}`,
    );
    expect(rest.body).toMatchObject({ next_cursor: null });
    expect([...first.body.data, ...rest.body.data].map((m: any) => m.id)).toEqual(media.map((m) => m.id));
    const thumb = await fetch(first.body.data[0].thumbnail_url);
    expect([thumb.status, thumb.headers.get('content-type')]).toEqual([200, 'image/jpeg']);
    // Browsing used the stored (second) token.
    expect((await capture.requests({ token: second, match: '/tree' })).length).toBe(1);

    // Unknown remote ids: 404; a capture source that keeps failing: 502; a revoked stored token: 409.
    expect((await alice.get(`${base}/teams/${team.id}/assignments/nope/tree`)).status).toBe(404);
    await capture.failNext('503', { count: 3, match: second });
    const failing = await alice.get(`${base}/teams`);
    expect(failing.status).toBe(502);
    expect(failing.body.detail).toMatch(/capture source unreachable/);
    await capture.revokeToken(second);
    const revoked = await alice.get(`${base}/teams`);
    expect(revoked.status).toBe(409);
    expect(revoked.body.detail).toMatch(/connect again/);

    // Another team sees none of it.
    const mallory = await Client.signIn(newTeamMember());
    expect((await mallory.get('/api/integrations/connections')).body.connections).toEqual([]);
    expect((await mallory.get(`${base}/teams`)).status).toBe(404);
    expect((await mallory.delete(base)).status).toBe(404);

    expect((await alice.delete(base)).body).toEqual({ id, deleted: true });
    expect((await alice.get('/api/integrations/connections')).body.connections).toEqual([]);
    expect((await alice.get(`${base}/teams`)).status).toBe(404);
    const feed = (await alice.get('/api/activity')).body.items as any[];
    expect(feed.map((e) => e.action_type)).toEqual(
      expect.arrayContaining(['connect_capture_source', 'disconnect_capture_source']),
    );
  });

  it('answers 503 when the deployment has no capture source', () => {
    expect(() => openCaptureSource('token', { ...settings(), CAPTURE_SOURCE_API_BASE_URL: '' })).toThrow(
      UnavailableError,
    );
  });
});
