/** The billing service client's base URL, configuration gap and deadline (lib/integrations/billing-service.ts). */
import { BillingServiceClient } from '../../../lib/integrations/billing-service';

describe('billing service base URL', () => {
  it.each([
    ['billing.example.com', 'https://billing.example.com'],
    ['billing.example.com/', 'https://billing.example.com'],
    ['https://billing.example.com', 'https://billing.example.com'],
    ['http://127.0.0.1:4010/', 'http://127.0.0.1:4010'],
    ['http://127.0.0.1:4010/ledger', 'http://127.0.0.1:4010/ledger'],
  ])('%s → %s', (domain, url) => {
    expect(new BillingServiceClient({ domain, apiKey: 'k', app: 'a' }).baseUrl).toBe(url);
  });

  it('answers unavailable (not configured) without a call when the domain or key is empty', async () => {
    const result = await new BillingServiceClient({ domain: '', apiKey: 'k', app: 'a' }).balance({ teamId: 1 });
    expect(result).toMatchObject({
      outcome: 'unavailable',
      error: { name: 'BillingServiceUnreachable', reason: 'not_configured' },
    });
  });
});

describe('billing client deadline', () => {
  it('bounds a whole call, retries and pauses included, well inside the 29 s of an HTTP function', () => {
    const client = new BillingServiceClient({ domain: 'billing.example.com', apiKey: 'k', app: 'a' });
    expect(client.deadlineMs).toBeLessThanOrEqual(20_000);
    expect(client.timeoutMs).toBeLessThan(client.deadlineMs);
  });
});
