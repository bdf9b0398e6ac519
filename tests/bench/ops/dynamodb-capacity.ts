/**
 * DynamoDB capacity units of one request: as DynamoDB Local reports them
 * (ConsumedCapacity in the answer), or computed from the item sizes in the
 * request and the answer where it reports none, by DynamoDB's billing rules:
 * reads in 4 KB units (eventually consistent half a unit), writes in 1 KB
 * units, transactions twice that.
 */

/** An attribute value in DynamoDB's JSON wire format, e.g. { S: 'x' } or { M: { … } }. */
type WireValue = Record<string, unknown>;
type WireItem = Record<string, WireValue>;

export interface Capacity {
  read: number;
  write: number;
  /** Of `read`/`write`, what the global secondary indexes took (reported only: the fallback cannot know). */
  gsiRead: number;
  gsiWrite: number;
}

const READ_OPERATIONS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan', 'TransactGetItems']);
export const WRITE_OPERATIONS = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
  'ExecuteStatement',
]);

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/** A number's size: about one byte per two significant digits, plus one. */
function numberSize(text: string): number {
  const digits = text.replace(/^[-+]/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

/** The size of one attribute value, by DynamoDB's item size rules. */
export function valueSize(value: WireValue): number {
  const [type, inner] = Object.entries(value)[0] ?? ['NULL', true];
  switch (type) {
    case 'S':
      return utf8(inner as string);
    case 'N':
      return numberSize(inner as string);
    case 'B':
      return Buffer.from(inner as string, 'base64').length;
    case 'BOOL':
    case 'NULL':
      return 1;
    case 'SS':
      return (inner as string[]).reduce((n, s) => n + utf8(s), 0);
    case 'NS':
      return (inner as string[]).reduce((n, s) => n + numberSize(s), 0);
    case 'BS':
      return (inner as string[]).reduce((n, s) => n + Buffer.from(s, 'base64').length, 0);
    case 'L':
      return 3 + (inner as WireValue[]).reduce((n, v) => n + valueSize(v) + 1, 0);
    case 'M':
      return 3 + Object.entries(inner as WireItem).reduce((n, [name, v]) => n + utf8(name) + valueSize(v) + 1, 0);
    default:
      return 0;
  }
}

/** An item's size: its attribute names and values. */
export const itemSize = (item: WireItem | undefined): number =>
  item ? Object.entries(item).reduce((n, [name, v]) => n + utf8(name) + valueSize(v), 0) : 0;

const readUnits = (bytes: number, consistent: boolean) => Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5);
const writeUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

const none = (): Capacity => ({ read: 0, write: 0, gsiRead: 0, gsiWrite: 0 });

interface ConsumedEntry {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

/**
 * The units in an answer's ConsumedCapacity (one entry, or one per table for
 * batches and transactions), null when it has none. Read or write by the
 * operation, unless the entry splits them itself.
 */
export function reportedCapacity(operation: string, consumed: unknown): Capacity | null {
  if (!consumed) return null;
  const entries = (Array.isArray(consumed) ? consumed : [consumed]) as ConsumedEntry[];
  if (entries.length === 0) return null;
  const isRead = READ_OPERATIONS.has(operation);
  const total = none();
  for (const entry of entries) {
    const units = entry.CapacityUnits ?? 0;
    const gsi = Object.values(entry.GlobalSecondaryIndexes ?? {}).reduce((n, g) => n + (g.CapacityUnits ?? 0), 0);
    if (entry.ReadCapacityUnits !== undefined || entry.WriteCapacityUnits !== undefined) {
      total.read += entry.ReadCapacityUnits ?? 0;
      total.write += entry.WriteCapacityUnits ?? 0;
    } else if (isRead) total.read += units;
    else total.write += units;
    if (isRead) total.gsiRead += gsi;
    else total.gsiWrite += gsi;
  }
  return total;
}

type Body = Record<string, any>;

/**
 * The units computed from the request and its answer. What the sizes cannot
 * show is taken at the minimum: an update, delete or condition check counts
 * one write unit (the item it changes is not in the request), and a query
 * or scan counts the items it returned (a filter's dropped items are not).
 */
export function computedCapacity(operation: string, request: Body, answer: Body): Capacity {
  const capacity = none();
  const consistent = request.ConsistentRead === true;
  switch (operation) {
    case 'GetItem':
      capacity.read = readUnits(itemSize(answer.Item), consistent);
      break;
    case 'Query':
    case 'Scan': {
      const bytes = ((answer.Items ?? []) as WireItem[]).reduce((n, item) => n + itemSize(item), 0);
      capacity.read = readUnits(bytes, consistent);
      break;
    }
    case 'BatchGetItem':
      for (const [table, items] of Object.entries((answer.Responses ?? {}) as Record<string, WireItem[]>)) {
        const strong = request.RequestItems?.[table]?.ConsistentRead === true;
        for (const item of items) capacity.read += readUnits(itemSize(item), strong);
      }
      break;
    case 'TransactGetItems':
      for (const response of (answer.Responses ?? []) as { Item?: WireItem }[])
        capacity.read += 2 * readUnits(itemSize(response.Item), true);
      break;
    case 'PutItem':
      capacity.write = writeUnits(itemSize(request.Item));
      break;
    case 'UpdateItem':
    case 'DeleteItem':
      capacity.write = writeUnits(itemSize(answer.Attributes));
      break;
    case 'BatchWriteItem':
      for (const [table, requests] of Object.entries((request.RequestItems ?? {}) as Record<string, Body[]>)) {
        const unprocessed = new Set(((answer.UnprocessedItems?.[table] ?? []) as Body[]).map((r) => JSON.stringify(r)));
        for (const r of requests)
          if (!unprocessed.has(JSON.stringify(r))) capacity.write += writeUnits(itemSize(r.PutRequest?.Item));
      }
      break;
    case 'TransactWriteItems':
      // Two units per KB of each item; an update, delete or condition check at the minimum of two.
      for (const item of (request.TransactItems ?? []) as Body[])
        capacity.write += 2 * writeUnits(itemSize(item.Put?.Item));
      break;
  }
  return capacity;
}
