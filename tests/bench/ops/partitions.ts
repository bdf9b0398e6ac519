/**
 * Which partitions a DynamoDB write lands in: the table's partition key
 * (`pk`) and, for each index whose key the write sets, that index's partition
 * key value. At scale DynamoDB allows a partition about 1,000 write units a
 * second; a partition every job or charge writes (a constant value such as
 * ACTIVE or BILLING#PENDING) is where a busy day would meet that limit, so
 * the report lists partitions by shape (ids masked) with the number of
 * distinct values behind each.
 *
 * Not seen from the request: an index entry removed (its old partition is
 * not named: counted as `<attr>=(removed)`) and an index entry rewritten by
 * an update that changes only its sort key (counted with the table's write).
 */

/** The partition key attributes of the table's indexes (serverless.yml). */
const INDEX_PARTITION_KEYS = ['gsi1pk', 'gsi2pk', 'archpk', 'activepk', 'jobspk'] as const;

type AttributeValue = { S?: string; N?: string };
type Item = Record<string, AttributeValue>;

export interface WrittenPartition {
  /** `pk` or an index's partition key attribute. */
  attribute: string;
  /** The value as written, or '(removed)'. */
  value: string;
}

const attributeText = (v: AttributeValue | undefined) => v?.S ?? v?.N;

function fromItem(item: Item | undefined): WrittenPartition[] {
  if (!item) return [];
  return ['pk', ...INDEX_PARTITION_KEYS].flatMap((attribute) => {
    const value = attributeText(item[attribute]);
    return value === undefined ? [] : [{ attribute, value }];
  });
}

/** The attribute a name in an update expression stands for (`#n` through ExpressionAttributeNames). */
function nameOf(token: string, names: Record<string, string> | undefined): string {
  return token.startsWith('#') ? (names?.[token] ?? token) : token;
}

/** The SET and REMOVE clauses of an update expression: index keys set to a value, and index keys removed. */
function fromUpdate(update: {
  Key?: Item;
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
}): WrittenPartition[] {
  const found = fromItem(update.Key);
  const expression = update.UpdateExpression ?? '';
  const clauses = expression.split(/\b(?=SET\b|REMOVE\b|ADD\b|DELETE\b)/i);
  for (const clause of clauses) {
    const [keyword, ...rest] = clause.trim().split(/\s+/);
    const body = rest.join(' ');
    if (/^SET$/i.test(keyword)) {
      for (const m of body.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
        const attribute = nameOf(m[1], update.ExpressionAttributeNames);
        const value = attributeText(update.ExpressionAttributeValues?.[m[2]]);
        if ((INDEX_PARTITION_KEYS as readonly string[]).includes(attribute) && value !== undefined)
          found.push({ attribute, value });
      }
    } else if (/^REMOVE$/i.test(keyword)) {
      for (const token of body.split(',').map((t) => t.trim())) {
        const attribute = nameOf(token, update.ExpressionAttributeNames);
        if ((INDEX_PARTITION_KEYS as readonly string[]).includes(attribute))
          found.push({ attribute, value: '(removed)' });
      }
    }
  }
  return found;
}

/** Every partition one write request writes (a refused write included: DynamoDB bills it). */
export function writtenPartitions(operation: string, request: Record<string, any>): WrittenPartition[] {
  switch (operation) {
    case 'PutItem':
      return fromItem(request.Item);
    case 'UpdateItem':
      return fromUpdate(request);
    case 'DeleteItem':
      return fromItem(request.Key);
    case 'BatchWriteItem':
      return Object.values(request.RequestItems ?? {}).flatMap((writes) =>
        (writes as any[]).flatMap((w) => [...fromItem(w.PutRequest?.Item), ...fromItem(w.DeleteRequest?.Key)]),
      );
    case 'TransactWriteItems':
      return (request.TransactItems ?? []).flatMap((t: any) => [
        ...fromItem(t.Put?.Item),
        ...(t.Update ? fromUpdate(t.Update) : []),
        ...fromItem(t.Delete?.Key),
      ]);
    default:
      return [];
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:[\d:.]+Z?/g;
const HOUR = /\d{4}-\d{2}-\d{2}T\d{2}/g;
const DAY = /\d{4}-\d{2}-\d{2}/g;
const MONTH = /\d{4}-\d{2}/g;
/** A shard's number at the end of a key (JOBTOTALS#7). */
const SHARD = /#\d{1,3}$/;
/** Other ids: a run of 16+ letters and digits with at least one digit (hashes, base64url tokens). */
const LONG_ID = /(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{16,}/g;

/** A partition's shape: its value with ids, times and days masked, so one job's partitions group with another's. */
export function partitionShape({ attribute, value }: WrittenPartition): string {
  const masked = value
    .replace(UUID, '<id>')
    .replace(TIMESTAMP, '<time>')
    .replace(HOUR, '<hour>')
    .replace(DAY, '<day>')
    .replace(MONTH, '<month>')
    .replace(LONG_ID, '<id>')
    .replace(SHARD, '#<n>');
  return `${attribute}=${masked}`;
}
