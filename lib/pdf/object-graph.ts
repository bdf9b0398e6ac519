/**
 * The objects of an uploaded PDF, as the renderer will see them. pdf-lib's
 * own loader reads a file front to back and keeps the last copy of an object
 * defined twice, while pdf.js follows the cross-reference: a file whose
 * cross-reference names a 200 MB content stream and whose later copy is small
 * showed the guards the small one and pdf.js the bomb. So the objects are
 * built here from the cross-reference (./cross-reference.ts), one parser's
 * choice for both, each parsed with pdf-lib's object parser where the
 * cross-reference says it lies. A file whose cross-reference is damaged is
 * indexed from its objects instead, the last copy of each winning, which is
 * what pdf.js does then too.
 *
 * Object streams are decoded within one budget for the document, before any
 * of their objects is parsed: pdf-lib would inflate each whole.
 *
 * An encrypted file is loaded by the library's own decryption (a document
 * that opens without a password: owner restrictions only), after its
 * cross-reference is checked the same way and the copy its loader keeps of
 * any object defined twice is shown to be the one the cross-reference names.
 */
import {
  PDFContext,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  type PDFObject,
  PDFObjectParser,
  PDFRawStream,
  PDFRef,
  ParseSpeeds,
} from '@cantoo/pdf-lib';
import {
  type CrossReference,
  type CrossReferenceEntry,
  DamagedCrossReference,
  objectHeaderAt,
  readCrossReference,
} from './cross-reference';
import { DecodeBudget, decodeWithin } from './reading-limits';
import { PdfUnreadable } from './unreadable';

/**
 * Decoded bytes of all of a document's object streams together. They hold
 * the document's small objects (dictionaries, arrays, numbers): a 2,000-page
 * list's are a few MB. ./unreadable.ts names this figure.
 */
const MAX_OBJECT_STREAM_BYTES = 32 * 1024 ** 2;

const corrupt = (why: string) => new PdfUnreadable('corrupt', { cause: new Error(why) });

/** An object definition's header (`12 0 obj`) wherever one starts (not inside a longer number). */
const HEADER = /(?<![0-9])(\d{1,10})\s+(\d{1,5})\s+obj\b/g;

/** The file is scanned for headers this many bytes at a time: a string of a whole 512 MiB file is past V8's limit. */
const SCAN_CHUNK = 16 * 1024 ** 2;
/** Bytes a chunk's text takes from each neighbour, so a header across a boundary is seen whole, once. */
const SCAN_OVERLAP = 64;

/** Every object header in the file in order: where its object starts (after `obj`), its number and generation. */
function* headersIn(bytes: Buffer) {
  for (let base = 0; base < bytes.length; base += SCAN_CHUNK) {
    const from = Math.max(0, base - SCAN_OVERLAP);
    const text = bytes.toString('latin1', from, Math.min(bytes.length, base + SCAN_CHUNK + SCAN_OVERLAP));
    HEADER.lastIndex = base - from;
    for (let match = HEADER.exec(text); match; match = HEADER.exec(text)) {
      if (from + match.index >= base + SCAN_CHUNK) break;
      yield { start: from + match.index + match[0].length, number: Number(match[1]), generation: Number(match[2]) };
    }
  }
}

class GraphBuilder {
  readonly context = PDFContext.create();
  private readonly objectStreams = new DecodeBudget(MAX_OBJECT_STREAM_BYTES);

  constructor(private readonly bytes: Buffer) {}

  /** The object that starts at `start`, parsed with pdf-lib's object parser. */
  parseAt(start: number): PDFObject {
    return PDFObjectParser.forBytes(this.bytes.subarray(start), this.context).parseObject();
  }

  /** The object at a direct entry's offset, whose header must name it there (pdf.js checks the same). */
  parseEntry(number: number, offset: number, generation: number): PDFObject {
    const header = objectHeaderAt(this.bytes, offset);
    if (header?.number !== number || header.generation !== generation) {
      throw new DamagedCrossReference(`object ${number} is not where the cross-reference says`);
    }
    return this.parseAt(offset + header.length);
  }

  /**
   * The objects an object stream holds, by their index in it: its decoded
   * bytes counted against the document's budget first.
   */
  objectsIn(stream: PDFObject | undefined): Map<number, { number: number; object: () => PDFObject }> {
    if (!(stream instanceof PDFRawStream)) throw corrupt('an object stream that is not a stream');
    const count = stream.dict.get(PDFName.of('N'));
    const first = stream.dict.get(PDFName.of('First'));
    if (!(count instanceof PDFNumber) || !(first instanceof PDFNumber))
      throw corrupt('an object stream without /N and /First');
    const decoded = Buffer.from(decodeWithin(stream, this.objectStreams) ?? new Uint8Array());
    const start = first.asNumber();
    if (!Number.isInteger(start) || start < 0 || start > decoded.length)
      throw corrupt('an object stream whose /First is outside it');
    const pairs = decoded.toString('latin1', 0, start).trim().split(/\s+/).map(Number);
    const objects = new Map<number, { number: number; object: () => PDFObject }>();
    for (let index = 0; index < count.asNumber() && 2 * index + 1 < pairs.length; index++) {
      const [number, offset] = [pairs[2 * index], pairs[2 * index + 1]];
      if (!Number.isInteger(number) || !Number.isInteger(offset) || start + offset > decoded.length) break;
      objects.set(index, {
        number,
        object: () => PDFObjectParser.forBytes(decoded.subarray(start + offset), this.context).parseObject(),
      });
    }
    return objects;
  }

  /** Builds the objects the cross-reference lists, the direct ones first (object streams are among them). */
  fromCrossReference({ entries, trailer }: CrossReference): PDFContext {
    const compressed = new Map<number, { number: number; index: number }[]>();
    const direct = [...entries].filter(
      (e): e is [number, Extract<CrossReferenceEntry, { kind: 'direct' }>] => e[1].kind === 'direct',
    );
    // In file order, as they were written: a stream's /Length defined before it is then known.
    direct.sort((a, b) => a[1].offset - b[1].offset);
    for (const [number, entry] of direct) {
      if (number === 0) continue;
      this.context.assign(PDFRef.of(number, entry.generation), this.parseEntry(number, entry.offset, entry.generation));
    }
    for (const [number, entry] of entries) {
      if (entry.kind !== 'compressed') continue;
      const wanted = compressed.get(entry.stream) ?? [];
      wanted.push({ number, index: entry.index });
      compressed.set(entry.stream, wanted);
    }
    for (const [stream, wanted] of compressed) {
      const held = this.objectsIn(this.context.lookup(PDFRef.of(stream)));
      for (const { number, index } of wanted) {
        const found = held.get(index);
        if (found) this.context.assign(PDFRef.of(number), found.object());
      }
    }
    this.nameDocument(trailer);
    return this.context;
  }

  /**
   * Indexes a file whose cross-reference is damaged: every object definition
   * in the file, the last copy of each winning, a definition inside an
   * earlier stream's data skipped; then what its object streams hold, for the
   * numbers no direct definition took.
   */
  fromObjects(): PDFContext {
    let covered = 0;
    const streams: PDFRawStream[] = [];
    let trailer: PDFDict | undefined;
    for (const { start, number, generation } of headersIn(this.bytes)) {
      if (start < covered) continue;
      let object: PDFObject;
      try {
        object = this.parseAt(start);
      } catch {
        continue;
      }
      this.context.assign(PDFRef.of(number, generation), object);
      if (!(object instanceof PDFRawStream)) continue;
      const type = object.dict.get(PDFName.of('Type'));
      if (type === PDFName.of('ObjStm')) streams.push(object);
      if (type === PDFName.of('XRef')) trailer = object.dict;
      const contents = object.contents;
      if (contents.buffer === this.bytes.buffer)
        covered = contents.byteOffset - this.bytes.byteOffset + contents.length;
    }
    this.nameDocument(this.lastTrailer() ?? trailer);
    // An encrypted file's object streams are ciphertext here: the caller decrypts it whole.
    if (this.context.trailerInfo.Encrypt !== undefined) return this.context;
    for (const stream of streams) {
      for (const { number, object } of this.objectsIn(stream).values()) {
        if (!this.context.lookup(PDFRef.of(number))) this.context.assign(PDFRef.of(number), object());
      }
    }
    return this.context;
  }

  /** The last `trailer` dictionary in the file, if any. */
  private lastTrailer(): PDFDict | undefined {
    const at = this.bytes.lastIndexOf('trailer', undefined, 'latin1');
    if (at < 0) return undefined;
    try {
      const dict = this.parseAt(at + 'trailer'.length);
      return dict instanceof PDFDict ? dict : undefined;
    } catch {
      return undefined;
    }
  }

  /** The trailer's names for the document; without a usable Root, the last catalog among the objects. */
  private nameDocument(trailer: PDFDict | undefined): void {
    const info = this.context.trailerInfo;
    info.Root = trailer?.get(PDFName.of('Root'));
    info.Info = trailer?.get(PDFName.of('Info'));
    info.Encrypt = trailer?.get(PDFName.of('Encrypt'));
    info.ID = trailer?.get(PDFName.of('ID'));
    const isCatalog = (object: PDFObject | undefined) =>
      object instanceof PDFDict && object.get(PDFName.of('Type')) === PDFName.of('Catalog');
    if (isCatalog(this.context.lookup(info.Root))) return;
    for (const [ref, object] of this.context.enumerateIndirectObjects()) if (isCatalog(object)) info.Root = ref;
  }
}

/** Loads an encrypted document with the library's decryption; one that needs a password is refused. */
async function decrypted(bytes: Buffer): Promise<PDFContext> {
  try {
    const document = await PDFDocument.load(bytes, {
      password: '',
      ignoreEncryption: true,
      updateMetadata: false,
      parseSpeed: ParseSpeeds.Fastest,
    });
    return document.context;
  } catch (error) {
    if (/password/i.test((error as Error)?.message ?? '')) throw new PdfUnreadable('encrypted', { cause: error });
    throw new PdfUnreadable('corrupt', { cause: error });
  }
}

/**
 * The numbers defined more than once whose last copy (the one a front-to-back
 * loader keeps) is not the one the cross-reference names: the two parsers
 * would read different documents.
 */
function disagreements(bytes: Buffer, { entries }: CrossReference): number[] {
  const last = new Map<number, number>();
  const seen = new Set<number>();
  const twice = new Set<number>();
  for (const { start, number } of headersIn(bytes)) {
    if (seen.has(number)) twice.add(number);
    seen.add(number);
    last.set(number, start);
  }
  return [...twice].filter((number) => {
    const entry = entries.get(number);
    if (entry?.kind !== 'direct') return true;
    const named = objectHeaderAt(bytes, entry.offset);
    return !named || entry.offset + named.length !== last.get(number);
  });
}

/** True when the trailer names an encryption dictionary. */
const isEncrypted = (reference: CrossReference) => reference.trailer.get(PDFName.of('Encrypt')) !== undefined;

/**
 * The document's objects (see the module comment), its trailer's names in
 * `context.trailerInfo`. Throws PdfUnreadable: 'corrupt' for a
 * cross-reference that declares more than the file could hold or objects
 * that do not parse, 'too_large' for object streams past their budget,
 * 'encrypted' for a document that needs a password.
 */
export async function loadObjectGraph(bytes: Buffer): Promise<PDFContext> {
  let reference: CrossReference | null;
  try {
    reference = readCrossReference(bytes);
  } catch (error) {
    if (!(error instanceof DamagedCrossReference)) throw error;
    reference = null;
  }
  if (reference && isEncrypted(reference)) {
    const differing = disagreements(bytes, reference);
    if (differing.length > 0)
      throw corrupt(`object ${differing[0]} is defined twice, and not as its cross-reference says`);
    return decrypted(bytes);
  }
  try {
    if (reference) {
      try {
        return new GraphBuilder(bytes).fromCrossReference(reference);
      } catch (error) {
        if (!(error instanceof DamagedCrossReference)) throw error;
      }
    }
    const context = new GraphBuilder(bytes).fromObjects();
    if (context.trailerInfo.Encrypt !== undefined) return decrypted(bytes);
    return context;
  } catch (error) {
    if (error instanceof PdfUnreadable) throw error;
    throw new PdfUnreadable('corrupt', { cause: error });
  }
}
