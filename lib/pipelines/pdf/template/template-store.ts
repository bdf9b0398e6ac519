/**
 * Learned contents-list recipes ("PDF templates"), global across teams: a
 * recipe is layout rules only, and what a template keeps of the document is
 * its fingerprint's hash, its page size and the hashes of its masked
 * repeating lines, never their text (a vendor's header often prints the
 * insured's name or the claim number). Templates of one page size share a
 * partition, so a hash miss compares the stored signatures with one query.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db, isConditionalCheckFailed, tableName } from '../../../db/client';
import { templateKeys } from './template-keys';
import { closestSignature, type DocumentFingerprint, type LayoutSignature } from './fingerprint-rules';
import type { Recipe } from '../recipe';
import { coerceRecipe } from '../learning/recipe-rules';

interface TemplateRow extends LayoutSignature {
  hash: string;
  recipe: Recipe;
}

const keyOf = (t: { pageWidth: number; pageHeight: number; hash: string }) =>
  templateKeys.pdfTemplate(t.pageWidth, t.pageHeight, t.hash);

/** Counts a use (how often a layout comes back); never fails the read. */
async function countUse(row: TemplateRow): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(row),
        UpdateExpression: 'ADD uses :one SET last_used_at = :at',
        ExpressionAttributeValues: { ':one': 1, ':at': new Date().toISOString() },
      }),
    )
    .catch(() => undefined);
}

/** The stored recipe of this layout: by its hash, else by a close enough signature of the same page size. */
export async function findTemplate(
  fingerprint: DocumentFingerprint,
): Promise<{ recipe: Recipe; matched: 'hash' | 'signature' } | null> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keyOf(fingerprint) }));
  if (Item) {
    await countUse(Item as TemplateRow);
    return { recipe: coerceRecipe(Item.recipe), matched: 'hash' };
  }
  const { pk } = keyOf(fingerprint);
  const rows: TemplateRow[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        // HASH is a reserved word of DynamoDB's expression language.
        ProjectionExpression: '#hash, pageWidth, pageHeight, signature, recipe',
        ExpressionAttributeNames: { '#hash': 'hash' },
        ExclusiveStartKey,
      }),
    );
    rows.push(...((page.Items ?? []) as TemplateRow[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  const close = closestSignature(rows, fingerprint);
  if (!close) return null;
  await countUse(close);
  return { recipe: coerceRecipe(close.recipe), matched: 'signature' };
}

/** Files the recipe under the layout (cacheable fingerprints only); the first writer wins. */
export async function saveTemplate(fingerprint: DocumentFingerprint, recipe: Recipe): Promise<void> {
  if (!fingerprint.cacheable) return;
  const row: TemplateRow = {
    hash: fingerprint.hash,
    pageWidth: fingerprint.pageWidth,
    pageHeight: fingerprint.pageHeight,
    signature: fingerprint.signature,
    recipe,
  };
  try {
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keyOf(row), entity: 'PdfTemplate', ...row, uses: 0, created_at: new Date().toISOString() },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  } catch (err) {
    if (!isConditionalCheckFailed(err)) throw err;
  }
}
