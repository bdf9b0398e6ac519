/**
 * Ids in what leaves the service (spec: a job id is a capability: it opens
 * the job's media and photos without a session). Every UUID-shaped id in a
 * span, log record, error report or analytics event is replaced on its way
 * out by a keyed hash, `id_` and the first 24 hex characters of
 * HMAC-SHA256(key, id in lower case): the same id always gives the same
 * value, so one job's signals still correlate, and an operator holding the
 * key can compute the value of an id to search for it. The service's own
 * stdout logs keep raw ids; trace and span ids are not UUIDs and stay.
 * Pure: no I/O.
 */
import { createHmac, hkdfSync } from 'node:crypto';

/** The settings the key comes from (lib/config's Settings has them). */
export interface OutboundIdSettings {
  SIGNALS_ID_KEY: string;
  CLAIMS_PLATFORM_JWT_SECRET: string;
  APP_ENV: string;
}

/** HKDF's info for the key derived from the login token secret: that secret never signs anything else here. */
const DERIVED_KEY_INFO = 'contents-inventory/outbound-signal-ids';
/** APP_ENV=local only: a known key is fine where every signal stays on the machine. */
const LOCAL_KEY = Buffer.from('contents-inventory local outbound signal ids');
/** What an id becomes when no key can be had: hidden, not correlated. */
export const UNKEYED_ID = 'id_unkeyed';

const keyBySettings = new WeakMap<OutboundIdSettings, Buffer | null>();

/**
 * The key ids are hashed with: SIGNALS_ID_KEY when set; else one derived
 * (HKDF-SHA256) from CLAIMS_PLATFORM_JWT_SECRET, which a working deployed
 * stage has (without it every login fails); else, with APP_ENV=local, a fixed
 * local-only key; else none (ids are then hidden as UNKEYED_ID).
 */
export function outboundIdKey(settings: OutboundIdSettings): Buffer | null {
  const known = keyBySettings.get(settings);
  if (known !== undefined) return known;
  let key: Buffer | null = null;
  const explicit = settings.SIGNALS_ID_KEY.trim();
  const loginSecret = settings.CLAIMS_PLATFORM_JWT_SECRET;
  if (explicit) key = Buffer.from(explicit, 'utf8');
  else if (loginSecret)
    key = Buffer.from(hkdfSync('sha256', Buffer.from(loginSecret, 'utf8'), Buffer.alloc(0), DERIVED_KEY_INFO, 32));
  else if (settings.APP_ENV === 'local') key = LOCAL_KEY;
  keyBySettings.set(settings, key);
  return key;
}

/** A UUID anywhere in a text: alone, in a URL path, in a message. */
const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The value an id leaves the service as. */
export function outboundId(id: string, key: Buffer | null): string {
  if (!key) return UNKEYED_ID;
  return `id_${createHmac('sha256', key).update(id.toLowerCase()).digest('hex').slice(0, 24)}`;
}

/** A text with every UUID in it replaced by its outbound value. */
export function withOutboundIdsInText(text: string, key: Buffer | null): string {
  return text.replace(UUID_IN_TEXT, (id) => outboundId(id, key));
}

/**
 * Every string inside `value` (object keys included) with its UUIDs replaced;
 * objects and arrays copied, other values kept. Deeper than `MAX_DEPTH` a
 * value is dropped rather than sent unread.
 */
export function withOutboundIds<T>(value: T, key: Buffer | null, depth = 0): T {
  if (typeof value === 'string') return withOutboundIdsInText(value, key) as T;
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return null as T;
  if (Array.isArray(value)) return value.map((v) => withOutboundIds(v, key, depth + 1)) as T;
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [withOutboundIdsInText(k, key), withOutboundIds(v, key, depth + 1)]),
  ) as T;
}

const MAX_DEPTH = 16;

/** Plain data only: class instances (a Date, a Uint8Array) carry no text of their own here and are kept. */
function isPlainObject(value: object): value is Record<string, unknown> {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
