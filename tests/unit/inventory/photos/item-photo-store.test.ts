/**
 * The one write of an item photo operation (lib/inventory/photos/item-photo-store.ts):
 * the item update and every photo row in one transaction, and a change too big
 * for one transaction refused before anything is sent.
 */
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { PhotoChangeTooLarge, writeItemPhotoChanges } from '../../../../lib/inventory/photos/item-photo-store';
import type { ItemPhoto } from '../../../../lib/inventory/item-record-rules';
import { useIsolatedSettings } from '../../../support/unit-settings';

const ddb = mockClient(DynamoDBDocumentClient);

useIsolatedSettings({ TABLE_NAME: 'unit-item-photos' });
beforeEach(() => ddb.reset());

const photos = (count: number): ItemPhoto[] =>
  Array.from({ length: count }, (_, i) => ({
    id: `photo-${i}`,
    item_id: 'item-1',
    filename: `orig_${i}.jpg`,
    job_id: 'job-1',
    key: `k/orig_${i}.jpg`,
    is_primary: i === 0,
    ordering: i,
  }));

const change = (put: ItemPhoto[]) => ({ itemId: 'item-1', expectedRev: 3, photoPath: '/p', put, remove: [] });

describe('writeItemPhotoChanges', () => {
  it('writes the item (at its revision) and the photo rows in one transaction', async () => {
    ddb.on(TransactWriteCommand).resolves({});
    await writeItemPhotoChanges([change(photos(2))]);
    const sent = ddb.commandCalls(TransactWriteCommand)[0].args[0].input.TransactItems ?? [];
    expect(sent).toHaveLength(3);
    expect(sent[0].Update?.ExpressionAttributeValues).toMatchObject({ ':expected_rev': 3 });
  });

  it('refuses a change of more than 100 rows without sending anything', async () => {
    await expect(writeItemPhotoChanges([change(photos(100))])).rejects.toBeInstanceOf(PhotoChangeTooLarge);
    expect(ddb.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});
