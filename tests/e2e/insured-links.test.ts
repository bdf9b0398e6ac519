/**
 * The homeowner link, adjuster side and the public wizard's state, over HTTP
 * against the run's fake mail service: invitations mailed with a URL whose
 * token is stored only as its hash, resend and re-invite rotating the token,
 * revoke, one 404 for unknown, malformed, revoked and expired tokens (never
 * 401), open tracking, and the mail-events webhook with valid, forged, stale
 * and replayed signatures.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { Client, request } from '../support/api';
import { getRow, setFields } from '../support/aws';
import { fakeMail } from '../support/fake-mail';
import { newTeamMember } from '../support/tokens';
import { newRoom } from '../support/uploads';

const SIGNING_KEY = 'test-mail-webhook-signing-key';
const mail = () => fakeMail(process.env.TEST_FAKE_MAIL_URL as string);

async function invitingTeam() {
  const client = await Client.signIn(newTeamMember());
  const room = await newRoom(client, 'Hall');
  const claimNumber = `INS-${randomUUID().slice(0, 8)}`;
  await client.patch(`/api/claims/${room.claim_id}`, { claim_number: claimNumber, insured_name: 'Pat Home' });
  return { client, claimId: room.claim_id, claimNumber };
}

const tokenOf = (url: string) => url.split('/').pop() as string;
const wizard = (token: string, headers?: Record<string, string>) =>
  request('GET', `/api/public/insured/${token}`, headers ? { headers } : {});

function signed(event: string, messageId: string, options: { ageSeconds?: number; key?: string } = {}) {
  const timestamp = String(Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0));
  const token = randomUUID().replace(/-/g, '');
  const signature = createHmac('sha256', options.key ?? SIGNING_KEY)
    .update(timestamp + token)
    .digest('hex');
  return {
    signature: { timestamp, token, signature },
    'event-data': { event, message: { headers: { 'message-id': messageId } } },
  };
}

const postEvent = (body: unknown) => request('POST', '/api/public/insured/mail-events', { body });

describe('insured links', () => {
  it('invites by email: the URL is mailed, only its token hash is stored, and the wizard opens with it', async () => {
    const t = await invitingTeam();
    const res = await t.client.post(`/api/claims/${t.claimId}/insured-links`, { email: ' Pat@Example.TEST ' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ mail_sent: true, not_configured: false, resent: false });
    expect(res.body.link).toMatchObject({ insured_email: 'pat@example.test', state: 'live', open_count: 0 });
    const token = tokenOf(res.body.url);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body.url).toBe(`http://app.example.test/insured/${token}`);

    const [sent] = await mail().messages(t.claimNumber);
    expect(sent.to).toEqual(['pat@example.test']);
    expect(sent.text).toContain(res.body.url);
    const row = await getRow(`INSUREDLINK#${res.body.link.id}`, 'LINK');
    expect(JSON.stringify(row)).not.toContain(token);

    const state = await wizard(token);
    expect(state.status).toBe(200);
    expect(state.body).toMatchObject({
      claim: { claim_number: t.claimNumber, insured_name: 'Pat Home' },
      insured_email: 'pat@example.test',
    });
    // A stray sign-in header changes nothing on the public surface.
    expect((await wizard(token, { authorization: 'Bearer not-a-token' })).status).toBe(200);
    const listed = await t.client.get(`/api/claims/${t.claimId}/insured-links`);
    expect(listed.body.links[0]).toMatchObject({ id: res.body.link.id, open_count: 2 });
    expect(listed.body.links[0].opened_at).toEqual(expect.any(String));
  });

  it('rotates the token on resend and on a re-invite of a live address: the old URL stops working', async () => {
    const t = await invitingTeam();
    const first = await t.client.post(`/api/claims/${t.claimId}/insured-links`, { email: 'home@example.test' });
    const resent = await t.client.post(`/api/insured-links/${first.body.link.id}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ resent: true, link: { id: first.body.link.id } });
    expect((await wizard(tokenOf(first.body.url))).status).toBe(404);
    expect((await wizard(tokenOf(resent.body.url))).status).toBe(200);

    const again = await t.client.post(`/api/claims/${t.claimId}/insured-links`, { email: 'HOME@example.test' });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ resent: true, link: { id: first.body.link.id } });
    expect((await wizard(tokenOf(resent.body.url))).status).toBe(404);
    expect((await wizard(tokenOf(again.body.url))).status).toBe(200);
    expect((await t.client.get(`/api/claims/${t.claimId}/insured-links`)).body.links).toHaveLength(1);
    expect(await mail().messages(t.claimNumber)).toHaveLength(3);
  });

  it('answers the same 404 for unknown, malformed, revoked and expired tokens, never 401', async () => {
    const t = await invitingTeam();
    const a = await t.client.post(`/api/claims/${t.claimId}/insured-links`, { email: 'a@example.test' });
    const b = await t.client.post(`/api/claims/${t.claimId}/insured-links`, { email: 'b@example.test' });
    const revoked = await t.client.post(`/api/insured-links/${a.body.link.id}/revoke`);
    expect(revoked.body.state).toBe('revoked');
    await setFields(`INSUREDLINK#${b.body.link.id}`, 'LINK', { expires_at: '2020-01-01T00:00:00.000Z' });
    const answers = await Promise.all(
      [tokenOf(a.body.url), tokenOf(b.body.url), 'A'.repeat(43), 'short', `${'A'.repeat(42)}!`].map((tk) => wizard(tk)),
    );
    for (const answer of answers)
      expect({ status: answer.status, body: answer.body }).toEqual({
        status: 404,
        body: { detail: 'Link not found' },
      });
    const listed = (await t.client.get(`/api/claims/${t.claimId}/insured-links`)).body.links;
    expect(listed.map((l: any) => l.state).sort()).toEqual(['expired', 'revoked']);
    // A revoked address gets a new link when invited again.
    const fresh = await t.client.post(`/api/claims/${t.claimId}/insured-links`, { email: 'a@example.test' });
    expect(fresh.body).toMatchObject({ resent: false });
    expect(fresh.body.link.id).not.toBe(a.body.link.id);
  });

  it('refuses a bad address with 422 and writes nothing', async () => {
    const t = await invitingTeam();
    const res = await t.client.post(`/api/claims/${t.claimId}/insured-links`, { email: 'not-an-address' });
    expect(res.status).toBe(422);
    expect((await t.client.get(`/api/claims/${t.claimId}/insured-links`)).body.links).toEqual([]);
  });
});

describe('the public wizard: identify and rooms', () => {
  it('records the name (no gate) and adds rooms once per name, in any case', async () => {
    const t = await invitingTeam();
    const res = await t.client.post(`/api/claims/${t.claimId}/insured-links`, { email: 'rooms@example.test' });
    const token = tokenOf(res.body.url);
    const base = `/api/public/insured/${token}`;
    const kitchen = await request('POST', `${base}/rooms`, { body: { name: ' Kitchen ' } });
    expect(kitchen.status).toBe(200);
    expect(kitchen.body).toMatchObject({ name: 'Kitchen', created: true });
    const again = await request('POST', `${base}/rooms`, { body: { name: 'KITCHEN' } });
    expect(again.body).toMatchObject({ id: kitchen.body.id, name: 'Kitchen', created: false });
    const [one, two] = await Promise.all(
      ['Garage', 'garage'].map((name) => request('POST', `${base}/rooms`, { body: { name } })),
    );
    expect(one.body.id).toBe(two.body.id);

    const named = await request('POST', `${base}/identify`, { body: { name: 'Pat Homeowner' } });
    expect(named.status).toBe(200);
    expect(named.body.insured_name).toBe('Pat Homeowner');
    // The two concurrent adds race; whichever spelling lands first names the room.
    const roomNames = named.body.rooms.map((r: any) => r.name);
    expect(roomNames).toHaveLength(2);
    expect(roomNames[0]).toBe('Kitchen');
    expect(['Garage', 'garage']).toContain(roomNames[1]);
    expect(roomNames[1]).toBe(one.body.name);
    const listed = await t.client.get(`/api/claims/${t.claimId}/insured-links`);
    expect(listed.body.links[0].insured_name).toBe('Pat Homeowner');

    expect((await request('POST', `${base}/rooms`, { body: { name: '' } })).status).toBe(422);
    expect(
      (await request('POST', `${base}/rooms`, { body: 'Kitchen', headers: { 'content-type': 'text/plain' } })).status,
    ).toBe(415);
    await t.client.post(`/api/insured-links/${res.body.link.id}/revoke`);
    const shut = await request('POST', `${base}/rooms`, { body: { name: 'Attic' } });
    expect({ status: shut.status, body: shut.body }).toEqual({ status: 404, body: { detail: 'Link not found' } });
  });
});

describe('mail-events webhook', () => {
  async function invitation() {
    const t = await invitingTeam();
    const res = await t.client.post(`/api/claims/${t.claimId}/insured-links`, { email: 'hooks@example.test' });
    const [sent] = await mail().messages(t.claimNumber);
    return { ...t, linkId: res.body.link.id as string, messageId: String(sent.id).replace(/^<|>$/g, '') };
  }
  const linkOf = async (t: Awaited<ReturnType<typeof invitation>>) =>
    (await t.client.get(`/api/claims/${t.claimId}/insured-links`)).body.links[0];

  it('records a signed delivery, open and click on the link', async () => {
    const t = await invitation();
    for (const event of ['delivered', 'opened', 'clicked']) {
      const res = await postEvent(signed(event, `<${t.messageId}>`));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ recorded: true, reason: event });
    }
    const link = await linkOf(t);
    expect(link.mail).toMatchObject({
      delivered_at: expect.any(String),
      opened_at: expect.any(String),
      clicked_at: expect.any(String),
    });
  });

  it('refuses forged and stale signatures with 404 before touching anything, and applies a replay once', async () => {
    const t = await invitation();
    const forged = await postEvent(signed('delivered', t.messageId, { key: 'someone-elses-key' }));
    expect(forged.status).toBe(404);
    const stale = await postEvent(signed('delivered', t.messageId, { ageSeconds: 20 * 60 }));
    expect(stale.status).toBe(404);
    const unsigned = await postEvent({ 'event-data': { event: 'delivered' } });
    expect(unsigned.status).toBe(422);
    expect((await linkOf(t)).mail.delivered_at).toBeNull();

    const body = signed('opened', t.messageId);
    expect((await postEvent(body)).body).toEqual({ recorded: true, reason: 'opened' });
    expect((await postEvent(body)).body).toEqual({ recorded: false, reason: 'replay' });
    // Mail this service did not send is ignored.
    expect((await postEvent(signed('delivered', 'unknown@mail.example.test'))).body).toEqual({
      recorded: false,
      reason: 'ignored',
    });
  });
});
