/**
 * The fake AI gateway's maxInFlight counter (tests/fakes/ai-gateway-server.ts),
 * which the photo pipeline benchmark reads to show the AI concurrency the
 * service really used: chat requests open at once, from arrival until the
 * response closes.
 */
import { startFakeAiGateway, type FakeAiGateway } from '../../fakes/ai-gateway-server';

let fake: FakeAiGateway;

beforeAll(async () => {
  fake = await startFakeAiGateway({ latencyMs: 150 });
});
afterAll(() => fake.stop());

const chat = async () => {
  const res = await fetch(`${fake.url}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'in-flight' }] }),
  });
  await res.text();
  return res.status;
};

describe('fake gateway maxInFlight', () => {
  it('counts the most chat requests open at once, not the total, and starts again on reset', async () => {
    expect(fake.maxInFlight).toBe(0);
    expect(await Promise.all([chat(), chat(), chat()])).toEqual([200, 200, 200]);
    expect(fake.maxInFlight).toBe(3);
    await chat();
    await chat();
    expect(fake.maxInFlight).toBe(3);
    expect(fake.requests).toHaveLength(5);

    fake.reset();
    expect(fake.maxInFlight).toBe(0);
    await chat();
    expect(fake.maxInFlight).toBe(1);
  });

  it('does not count control API calls', async () => {
    fake.reset();
    await fetch(`${fake.origin}/__fake/requests`).then((r) => r.text());
    expect(fake.maxInFlight).toBe(0);
  });
});
