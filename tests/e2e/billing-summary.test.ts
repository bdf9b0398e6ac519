/**
 * GET /api/billing/summary over real HTTP (spec: Settings, activity, billing).
 * The test service runs with billing off (no BILLING_APP_DOMAIN), so the
 * prepaid fields are false/null; spend is whole credits over all the team's
 * claims, archived ones included.
 */
import { Client, request } from '../support/api';
import { setFields } from '../support/aws';
import { newTeamMember, teammateOf } from '../support/tokens';

describe('GET /api/billing/summary', () => {
  it('answers the billing-off shape with the flat rates for a new team', async () => {
    const alice = await Client.signIn(newTeamMember());
    const res = await alice.get('/api/billing/summary');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      total_spend_usd: 0,
      rates: { video: 3, photo: 1, audio: 1 },
      block_seconds: 20,
      billing_enabled: false,
      credits_balance: null,
      buy_credits_url: null,
    });
  });

  it("sums the spend of the team's active and archived claims, and only that team's", async () => {
    const member = newTeamMember();
    const alice = await Client.signIn(member);
    const bob = await Client.signIn(teammateOf(member));
    const stranger = await Client.signIn(newTeamMember());
    const active = (await alice.post('/api/claims', { claim_number: 'SPEND-1' })).body;
    const archived = (await bob.post('/api/claims', { claim_number: 'SPEND-2' })).body;
    await setFields(`CLAIM#${active.id}`, 'CLAIM', { spend_credits: 21 });
    await setFields(`CLAIM#${archived.id}`, 'CLAIM', { spend_credits: 5 });
    expect((await alice.post(`/api/claims/${archived.id}/archive`)).status).toBe(200);

    expect((await alice.get('/api/billing/summary')).body.total_spend_usd).toBe(26);
    expect((await bob.get('/api/billing/summary')).body.total_spend_usd).toBe(26);
    expect((await stranger.get('/api/billing/summary')).body.total_spend_usd).toBe(0);
  });

  it('answers 401 without a token', async () => {
    expect((await request('GET', '/api/billing/summary')).status).toBe(401);
  });
});
