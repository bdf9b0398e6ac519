/**
 * pdf-lib's view of an encrypted document that opens without a password
 * (owner restrictions only). pdf-lib does not decrypt: it would hold
 * ciphertext for every stream, and cannot even read objects kept inside
 * object streams. So the document is parsed twice with pdf-lib's parser,
 * its object reading taken over:
 *  1. a survey that keeps the top-level objects as written and skips object
 *     streams, for the encryption dictionary and the file identifier (which
 *     are never inside object streams);
 *  2. the read proper, each stream decrypted as it is met (object streams
 *     before their objects are parsed) and each string of a top-level object
 *     decrypted, with the key ./security-handler.ts derives.
 * The streams are copies, not views of the document's bytes (so the reader
 * records no byte range for a stored JPEG). pdf.js decrypts on its own for the
 * text and the rendering.
 */
import {
  PDFArray,
  type PDFContext,
  PDFDict,
  PDFDocument,
  PDFHexString,
  PDFName,
  type PDFObject,
  PDFObjectStreamParser,
  PDFParser,
  PDFRawStream,
  PDFRef,
  PDFString,
  PDFXRefStreamParser,
} from 'pdf-lib';
import { type Decryption, standardDecryption } from './security-handler';

/** The parts of pdf-lib's parser the object reading is taken over with (pdf-lib 1.17). */
interface ParserInternals {
  context: PDFContext;
  parseIndirectObject(): Promise<PDFRef>;
  parseIndirectObjectHeader(): PDFRef;
  parseObject(): PDFObject;
  skipWhitespaceAndComments(): void;
  matchKeyword(keyword: number[]): boolean;
  shouldWaitForTick: () => boolean;
}

const ENDOBJ = [...'endobj'].map((c) => c.charCodeAt(0));

/** Thrown when the document needs a password (or another security handler) to be read. */
export class NeedsPassword extends Error {}

function hexOf(bytes: Uint8Array): PDFHexString {
  return PDFHexString.of(Buffer.from(bytes).toString('hex'));
}

/** The object with its strings (in its dicts and arrays, not behind references) decrypted as `ref`'s. */
function clearStrings(object: PDFObject, ref: PDFRef, decryption: Decryption): PDFObject {
  if (object instanceof PDFString || object instanceof PDFHexString) {
    return hexOf(decryption.string(ref, object.asBytes()));
  }
  if (object instanceof PDFDict) {
    for (const [key, value] of object.entries()) object.set(key, clearStrings(value, ref, decryption));
  } else if (object instanceof PDFArray) {
    for (let i = 0; i < object.size(); i++) object.set(i, clearStrings(object.get(i), ref, decryption));
  }
  return object;
}

interface Reading {
  decryption: Decryption | null;
  /** The encryption dictionary's object: its strings are never encrypted. */
  encrypt: PDFRef | null;
}

/** Parses `bytes` with pdf-lib, reading each indirect object as `reading` says (see the module comment). */
async function parse(bytes: Uint8Array, { decryption, encrypt }: Reading): Promise<PDFContext> {
  const parser = PDFParser.forBytesWithOptions(bytes, Number.POSITIVE_INFINITY, true, false);
  const internals = parser as unknown as ParserInternals;
  if (typeof internals.parseIndirectObjectHeader !== 'function' || typeof internals.parseObject !== 'function') {
    throw new Error('this pdf-lib parser cannot be taken over');
  }
  internals.parseIndirectObject = async () => {
    const ref = internals.parseIndirectObjectHeader();
    internals.skipWhitespaceAndComments();
    const object = internals.parseObject();
    internals.skipWhitespaceAndComments();
    internals.matchKeyword(ENDOBJ);
    const { context } = internals;
    if (!(object instanceof PDFRawStream)) {
      const clear = decryption && ref !== encrypt ? clearStrings(object, ref, decryption) : object;
      context.assign(ref, clear);
      return ref;
    }
    const type = object.dict.lookup(PDFName.of('Type'));
    // Cross-reference streams are never encrypted; they carry the trailer.
    if (type === PDFName.of('XRef')) {
      PDFXRefStreamParser.forStream(object).parseIntoContext();
      return ref;
    }
    if (!decryption) {
      if (type !== PDFName.of('ObjStm')) context.assign(ref, object);
      return ref;
    }
    const clearMetadata = type === PDFName.of('Metadata') && !decryption.encryptsMetadata;
    const plain = clearMetadata
      ? object
      : PDFRawStream.of(clearStrings(object.dict, ref, decryption) as PDFDict, decryption.stream(ref, object.contents));
    if (type === PDFName.of('ObjStm')) {
      await PDFObjectStreamParser.forStream(plain, internals.shouldWaitForTick).parseIntoContext();
    } else {
      context.assign(ref, plain);
    }
    return ref;
  };
  return parser.parseDocument();
}

/**
 * The document's structure with its streams and strings decrypted. Throws
 * NeedsPassword when it cannot be read without a password; pdf-lib's errors
 * for a document it cannot parse.
 */
export async function decryptedStructure(bytes: Uint8Array): Promise<PDFDocument> {
  const survey = await parse(bytes, { decryption: null, encrypt: null });
  const { Encrypt, ID } = survey.trailerInfo;
  const dict = survey.lookup(Encrypt);
  // Named but missing: the document is damaged, not locked.
  if (!(dict instanceof PDFDict)) throw new Error('the encryption dictionary is missing');
  const decryption = standardDecryption(survey, dict, survey.lookup(ID));
  if (!decryption) throw new NeedsPassword('a password is needed');
  const context = await parse(bytes, { decryption, encrypt: Encrypt instanceof PDFRef ? Encrypt : null });
  // Decrypted: nothing is left for pdf-lib to refuse.
  context.trailerInfo.Encrypt = undefined;
  const Document = PDFDocument as unknown as new (
    context: PDFContext,
    ignoreEncryption: boolean,
    updateMetadata: boolean,
  ) => PDFDocument;
  return new Document(context, true, false);
}

/** True when the bytes name an encryption dictionary somewhere (a cheap look before a second parse). */
export function mentionsEncryption(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes('/Encrypt');
}
