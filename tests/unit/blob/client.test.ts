/**
 * Deleting a prefix (the purge, job deletion): DeleteObjects answers 200 even
 * when it did not delete some keys, listing them under Errors. Those are sent
 * again, and what is still refused fails the call so the message is retried.
 */
import { DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { DELETE_ATTEMPTS, DeleteObjectsError, deletePrefix } from '../../../lib/blob/client';

const s3 = mockClient(S3Client);
const prefix = 'teams/t/claims/c/';
const keys = ['a.jpg', 'b.jpg', 'c.jpg'].map((name) => `${prefix}${name}`);

beforeEach(() => {
  s3.reset();
  s3.on(ListObjectsV2Command).resolves({ Contents: keys.map((Key) => ({ Key })), IsTruncated: false });
});

const deletedKeys = (call: number) =>
  (s3.commandCalls(DeleteObjectsCommand)[call].args[0].input.Delete?.Objects ?? []).map((o) => o.Key);

describe('deletePrefix', () => {
  it('sends the keys S3 reported under Errors again until they are deleted', async () => {
    s3.on(DeleteObjectsCommand)
      .resolvesOnce({
        Deleted: [{ Key: keys[0] }, { Key: keys[2] }],
        Errors: [{ Key: keys[1], Code: 'InternalError', Message: 'try again' }],
      })
      .resolves({});

    await expect(deletePrefix(prefix)).resolves.toBe(3);

    expect(s3.commandCalls(DeleteObjectsCommand)).toHaveLength(2);
    expect(deletedKeys(0)).toEqual(keys);
    expect(deletedKeys(1)).toEqual([keys[1]]);
  });

  it('fails, naming the keys, when S3 keeps refusing them', async () => {
    s3.on(DeleteObjectsCommand).resolves({ Errors: [{ Key: keys[2], Code: 'SlowDown', Message: 'slow down' }] });

    const err = await deletePrefix(prefix).catch((e) => e);

    expect(err).toBeInstanceOf(DeleteObjectsError);
    expect(err.failed).toEqual([{ key: keys[2], code: 'SlowDown' }]);
    expect(err.message).toContain(keys[2]);
    expect(s3.commandCalls(DeleteObjectsCommand)).toHaveLength(DELETE_ATTEMPTS);
  });
});
