/**
 * The PDF standard security handler (ISO 32000-2 §7.6.4), for documents that
 * open without a password: encrypted so that only their owner may print,
 * copy or edit them, but readable with the empty user password. The file key
 * is computed from that empty password (revisions 2-4: RC4 or AES-128 with
 * MD5 keys; 5-6: AES-256) and each stream is decrypted with it. A document
 * whose user password is not empty, or another security handler (public
 * keys), gives null: it cannot be read without what only its owner knows.
 *
 * RC4 is written out here: Node's OpenSSL 3 leaves it to the legacy provider.
 */
import { createDecipheriv, createCipheriv, createHash } from 'node:crypto';
import {
  PDFArray,
  PDFBool,
  type PDFContext,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFNumber,
  type PDFObject,
  type PDFRef,
  PDFString,
} from 'pdf-lib';

/** Algorithm 2's padding: what an empty password becomes. */
const PASSWORD_PADDING = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

type Cipher = 'none' | 'rc4' | 'aes128' | 'aes256';

export interface Decryption {
  /** A stream's bytes as written, decrypted (object `ref`). */
  stream(ref: PDFRef, bytes: Uint8Array): Uint8Array;
  /** A string's bytes as written, decrypted (a string of object `ref`). */
  string(ref: PDFRef, bytes: Uint8Array): Uint8Array;
  /** False when the document's XMP metadata stream is left in the clear (EncryptMetadata false). */
  readonly encryptsMetadata: boolean;
}

function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i] + key[i % key.length]) & 0xff;
    [s[i], s[j]] = [s[j], s[i]];
  }
  const out = new Uint8Array(data.length);
  for (let n = 0, i = 0, j = 0; n < data.length; n++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]) & 0xff;
    [s[i], s[j]] = [s[j], s[i]];
    out[n] = data[n] ^ s[(s[i] + s[j]) & 0xff];
  }
  return out;
}

/** AES-CBC with the IV in the first 16 bytes (PDF's AESV2/AESV3); padding taken off when it is well formed. */
function aesCbc(key: Uint8Array, data: Uint8Array): Uint8Array {
  if (data.length < 32) return new Uint8Array();
  const algorithm = key.length === 32 ? 'aes-256-cbc' : 'aes-128-cbc';
  const decipher = createDecipheriv(algorithm, key, data.subarray(0, 16));
  decipher.setAutoPadding(false);
  // A torn last block is left out, as readers do.
  const body = data.subarray(16, 16 + Math.floor((data.length - 16) / 16) * 16);
  const plain = Buffer.concat([decipher.update(body), decipher.final()]);
  const pad = plain[plain.length - 1];
  const padded = pad >= 1 && pad <= 16 && plain.subarray(plain.length - pad).every((b) => b === pad);
  return padded ? plain.subarray(0, plain.length - pad) : plain;
}

const md5 = (...parts: Uint8Array[]) => {
  const hash = createHash('md5');
  for (const part of parts) hash.update(part);
  return hash.digest();
};

function bytesOf(object: PDFObject | undefined): Uint8Array | null {
  if (object instanceof PDFString || object instanceof PDFHexString) return object.asBytes();
  return null;
}

/** Algorithm 2: the file key of revisions 2-4 from the empty user password. */
function keyR2toR4(dict: Entries, id: Uint8Array, length: number): Buffer {
  const permissions = Buffer.alloc(4);
  permissions.writeInt32LE(dict.permissions | 0);
  const parts = [PASSWORD_PADDING, dict.owner.subarray(0, 32), permissions, id];
  if (dict.revision >= 4 && !dict.encryptsMetadata) parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  let hash = md5(...parts);
  const n = dict.revision === 2 ? 5 : length;
  if (dict.revision >= 3) for (let i = 0; i < 50; i++) hash = md5(hash.subarray(0, n));
  return hash.subarray(0, n);
}

/** Algorithms 4-6: true when `key` is the empty user password's (U checks out). */
function userKeyChecks(dict: Entries, id: Uint8Array, key: Uint8Array): boolean {
  if (dict.revision === 2) return Buffer.from(rc4(key, PASSWORD_PADDING)).equals(dict.user.subarray(0, 32));
  let value = rc4(key, md5(PASSWORD_PADDING, id));
  for (let i = 1; i <= 19; i++)
    value = rc4(
      key.map((b) => b ^ i),
      value,
    );
  return Buffer.from(value).equals(dict.user.subarray(0, 16));
}

/** Algorithm 2.B (revision 6): the hash of a password (empty here) with a salt. */
function hashR6(salt: Uint8Array): Buffer {
  let k = createHash('sha256').update(salt).digest();
  for (let round = 0; ; round++) {
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => k));
    const cipher = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32));
    cipher.setAutoPadding(false);
    const e = Buffer.concat([cipher.update(k1), cipher.final()]);
    const mod = e.subarray(0, 16).reduce((sum, b) => sum + b, 0) % 3;
    k = createHash(mod === 0 ? 'sha256' : mod === 1 ? 'sha384' : 'sha512')
      .update(e)
      .digest();
    if (round >= 63 && e[e.length - 1] <= round + 1 - 32) break;
  }
  return k.subarray(0, 32);
}

/** Revisions 5-6: the file key from UE, when the empty user password checks out against U. */
function keyR5R6(dict: Entries): Buffer | null {
  const { user, userKey } = dict;
  if (user.length < 48 || !userKey || userKey.length < 32) return null;
  const hash = (salt: Uint8Array) => (dict.revision === 6 ? hashR6(salt) : createHash('sha256').update(salt).digest());
  if (!hash(user.subarray(32, 40)).equals(user.subarray(0, 32))) return null;
  const decipher = createDecipheriv('aes-256-cbc', hash(user.subarray(40, 48)), Buffer.alloc(16));
  decipher.setAutoPadding(false);
  return Buffer.concat([decipher.update(userKey.subarray(0, 32)), decipher.final()]);
}

interface Entries {
  version: number;
  revision: number;
  /** Key length in bytes. */
  length: number;
  owner: Uint8Array;
  user: Uint8Array;
  userKey: Uint8Array | null;
  permissions: number;
  encryptsMetadata: boolean;
  streams: Cipher;
  strings: Cipher;
}

/** The cipher a crypt filter names (V4/V5: CF, StmF, StrF); Identity or a missing one: none. */
function filterCipher(context: PDFContext, dict: PDFDict, key: 'StmF' | 'StrF'): Cipher | null {
  const name = context.lookup(dict.get(PDFName.of(key)));
  if (!(name instanceof PDFName) || name.decodeText() === 'Identity') return 'none';
  const filters = context.lookup(dict.get(PDFName.of('CF')));
  const filter = filters instanceof PDFDict ? context.lookup(filters.get(name)) : undefined;
  if (!(filter instanceof PDFDict)) return null;
  const method = context.lookup(filter.get(PDFName.of('CFM')));
  const cfm = method instanceof PDFName ? method.decodeText() : 'None';
  return ({ None: 'none', V2: 'rc4', AESV2: 'aes128', AESV3: 'aes256' } as Record<string, Cipher>)[cfm] ?? null;
}

function entriesOf(context: PDFContext, dict: PDFDict): Entries | null {
  const number = (key: string) => {
    const value = context.lookup(dict.get(PDFName.of(key)));
    return value instanceof PDFNumber ? value.asNumber() : undefined;
  };
  const filter = context.lookup(dict.get(PDFName.of('Filter')));
  if (!(filter instanceof PDFName) || filter.decodeText() !== 'Standard') return null;
  const version = number('V') ?? 0;
  const revision = number('R') ?? 0;
  const owner = bytesOf(context.lookup(dict.get(PDFName.of('O'))));
  const user = bytesOf(context.lookup(dict.get(PDFName.of('U'))));
  const permissions = number('P');
  if (!owner || !user || permissions === undefined || revision < 2 || revision > 6) return null;
  const metadata = context.lookup(dict.get(PDFName.of('EncryptMetadata')));
  const encryptsMetadata = !(metadata instanceof PDFBool) || metadata.asBoolean();
  let streams: Cipher | null = 'rc4';
  let strings: Cipher | null = 'rc4';
  if (version === 4 || version === 5) {
    streams = filterCipher(context, dict, 'StmF');
    strings = filterCipher(context, dict, 'StrF');
  } else if (version !== 1 && version !== 2) return null;
  if (!streams || !strings) return null;
  const bits = version === 5 ? 256 : (number('Length') ?? 40);
  const length = version === 1 ? 5 : Math.min(16, Math.max(5, Math.floor(bits / 8)));
  const userKey = bytesOf(context.lookup(dict.get(PDFName.of('UE'))));
  return {
    version,
    revision,
    length,
    owner,
    user,
    userKey,
    permissions,
    encryptsMetadata,
    streams,
    strings,
  };
}

/**
 * The decryption of a document with the encryption dictionary `encrypt` and
 * the file identifier `ids` (the trailer's ID), or null when it needs a
 * password (or another security handler).
 */
export function standardDecryption(
  context: PDFContext,
  encrypt: PDFDict,
  ids: PDFObject | undefined,
): Decryption | null {
  const entries = entriesOf(context, encrypt);
  if (!entries) return null;
  const first = ids instanceof PDFArray && ids.size() > 0 ? bytesOf(context.lookup(ids.get(0))) : null;
  const id = first ?? new Uint8Array();
  let fileKey: Buffer | null;
  if (entries.revision >= 5) {
    fileKey = keyR5R6(entries);
  } else {
    fileKey = keyR2toR4(entries, id, entries.length);
    if (!userKeyChecks(entries, id, fileKey)) fileKey = null;
  }
  if (!fileKey) return null;
  const key = fileKey;

  /** Algorithm 1: an object's own key (revisions 2-4); revision 5-6 use the file key as it is. */
  const objectKey = (ref: PDFRef, aes: boolean) => {
    if (entries.revision >= 5) return key;
    const suffix = Buffer.from([
      ref.objectNumber & 0xff,
      (ref.objectNumber >> 8) & 0xff,
      (ref.objectNumber >> 16) & 0xff,
      ref.generationNumber & 0xff,
      (ref.generationNumber >> 8) & 0xff,
    ]);
    const salt = aes ? Buffer.from('sAlT', 'latin1') : Buffer.alloc(0);
    return md5(key, suffix, salt).subarray(0, Math.min(key.length + 5, 16));
  };
  const decrypt = (cipher: Cipher, ref: PDFRef, bytes: Uint8Array): Uint8Array => {
    if (cipher === 'none') return bytes;
    if (cipher === 'rc4') return rc4(objectKey(ref, false), bytes);
    return aesCbc(objectKey(ref, cipher === 'aes128'), bytes);
  };
  return {
    stream: (ref, bytes) => decrypt(entries.streams, ref, bytes),
    string: (ref, bytes) => decrypt(entries.strings, ref, bytes),
    encryptsMetadata: entries.encryptsMetadata,
  };
}
