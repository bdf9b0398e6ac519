/**
 * GET /api/billing/summary over real HTTP (spec: Settings, activity, billing).
 * The test service runs in prepaid mode against the fake billing service
 * (tests/support/global-setup.ts); the billing-off shape is covered in
 * tests/integration/billing-service.test.ts. Spend is whole credits over all
 * the team's claims, archived ones included.
 */
import { Client, request } from '../support/api';
import { setFields } from '../support/aws';
import { fakeBilling } from '../support/fake-billing';
import { newTeamMember, teammateOf } from '../support/tokens';

describe('GET /api/billing/summary', () => {
  it('answers the prepaid shape: the flat rates, and the balance and buy URL from the billing service', async () => {
    const member = newTeamMember();
    const alice = await Client.signIn(member);
    await fakeBilling.setBalance(member.current_team_id, 37);
    const res = await alice.get('/api/billing/summary');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      total_spend_usd: 0,
      rates: { video: 3, photo: 1, audio: 1 },
      block_seconds: 20,
      billing_enabled: true,
      credits_balance: 37,
      buy_credits_url: expect.stringMatching(/^https:\/\//),
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
