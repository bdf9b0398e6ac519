/**
 * The one-time migration to per-item estimation send tracking
 * (lib/sends/migration-service.ts), run twice over a claim sent before the
 * items carried their own stamp.
 */
import { getItem } from '../../lib/inventory/item-store';
import { migrateEstimationSendTracking } from '../../lib/sends/migration-service';
import { setFields } from '../support/aws';
import { addItem, sendTeam, submit } from '../support/sends';

jest.setTimeout(120_000);

it("stamps the items that existed at the claim's send with its time, leaves later ones unsent, and is safe to run twice", async () => {
  const legacy = await sendTeam([['Sofa'], ['Lamp']]);
  const sentAt = new Date().toISOString();
  // What a send made before per-item tracking left: the claim linked and stamped, its items not.
  await setFields(`CLAIM#${legacy.claimId}`, 'CLAIM', {
    estimation_submitted_at: sentAt,
    estimation_claim_key: 'LEGACY-KEY',
    estimation_claim_id: '00000000-0000-4000-8000-000000000001',
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const later = await addItem(legacy, 'Bookcase');

  // A claim sent with tracking, one item deliberately left unsent: not the migration's business.
  const tracked = await sendTeam([['Chair'], ['Desk']]);
  expect((await submit(tracked, { item_ids: [tracked.items[0].id] })).status).toBe(200);

  const first = await migrateEstimationSendTracking();
  expect(first.stamped).toBeGreaterThanOrEqual(2);
  for (const item of legacy.items) expect((await getItem(item.id))?.estimation_sent_at).toBe(sentAt);
  expect((await getItem(later))?.estimation_sent_at).toBeNull();
  expect((await getItem(tracked.items[1].id))?.estimation_sent_at).toBeNull();

  await migrateEstimationSendTracking();
  for (const item of legacy.items) expect((await getItem(item.id))?.estimation_sent_at).toBe(sentAt);
  expect((await getItem(later))?.estimation_sent_at).toBeNull();
  const quote = await legacy.client.get(`/api/claims/${legacy.claimId}/estimation-platform-quote`);
  expect(quote.body.unsent_item_count).toBe(1);
});
