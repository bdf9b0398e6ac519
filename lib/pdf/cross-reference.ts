/**
 * A PDF's cross-reference: where each object lies, as pdf.js finds it (the
 * section `startxref` names, then each older one by /Prev, a hybrid file's
 * /XRefStm with its table; the newest entry for a number wins, a free one
 * included). ./object-graph.ts builds the reader's objects from it, so the
 * guards measure the objects pdf.js will decode.
 *
 * What a section declares is checked against the file before anything is made
 * for it: it may not list more objects than the file has bytes (a 735-byte
 * file declaring five million made pdf-lib build five million entries), and a
 * stream section's rows must lie in its decoded data, decoded no further than
 * they need. Damage (no section where `startxref` says, a row cut short) is
 * not a refusal: the caller rebuilds the table from the objects themselves,
 * as pdf.js does.
 */
import { PDFArray, PDFContext, PDFDict, PDFName, PDFNumber, PDFObjectParser, PDFRawStream } from '@cantoo/pdf-lib';
import { DecodeBudget, decodeWithin } from './reading-limits';
import { PdfUnreadable } from './unreadable';

export type CrossReferenceEntry =
  | { kind: 'free' }
  | { kind: 'direct'; offset: number; generation: number }
  | { kind: 'compressed'; stream: number; index: number };

export interface CrossReference {
  entries: Map<number, CrossReferenceEntry>;
  /** The newest trailer's entries that name the document: Root, Info, Encrypt, ID. */
  trailer: PDFDict;
}

/** The object header (`12 0 obj`) at `offset`, white space before it allowed; null where there is none. */
export function objectHeaderAt(
  bytes: Buffer,
  offset: number,
): { number: number; generation: number; length: number } | null {
  const header = /^\s*(\d+)\s+(\d+)\s+obj/.exec(bytes.toString('latin1', offset, offset + 64));
  return header ? { number: Number(header[1]), generation: Number(header[2]), length: header[0].length } : null;
}

/** Sections followed through /Prev before the chain counts as a loop. */
const MAX_SECTIONS = 1000;

/** Text the `startxref` keyword must lie in: the file's last kilobyte, as the format says and pdf.js looks. */
const TAIL_BYTES = 1024;

/** The cross-reference table is unreadable here: the objects themselves are indexed instead. */
export class DamagedCrossReference extends Error {}

const damaged = (why: string) => new DamagedCrossReference(why);

/** Most objects a file of `size` bytes can define: one per byte, far above any real document's. */
const objectLimit = (size: number) => Math.max(1024, size);

function overDeclared(count: number, size: number): PdfUnreadable {
  return new PdfUnreadable('corrupt', {
    cause: new Error(`its cross-reference declares ${count} objects in a file of ${size} bytes`),
  });
}

const integerIn = (dict: PDFDict, key: string): number | undefined => {
  const value = dict.get(PDFName.of(key));
  return value instanceof PDFNumber && Number.isInteger(value.asNumber()) ? value.asNumber() : undefined;
};

class SectionReader {
  readonly entries = new Map<number, CrossReferenceEntry>();
  /** Parses the sections' dictionaries; nothing it holds is kept. */
  private readonly scratch = PDFContext.create();

  constructor(private readonly bytes: Buffer) {}

  /** Records an entry unless a newer section already did. */
  private record(number: number, entry: CrossReferenceEntry): void {
    if (!this.entries.has(number)) this.entries.set(number, entry);
  }

  private parseObjectAt(position: number) {
    return PDFObjectParser.forBytes(this.bytes.subarray(position), this.scratch).parseObject();
  }

  /** Reads the section at `offset`; its trailer dictionary. */
  read(offset: number): PDFDict {
    if (!Number.isInteger(offset) || offset < 0 || offset >= this.bytes.length)
      throw damaged('offset outside the file');
    const head = this.bytes.toString('latin1', offset, offset + 64);
    if (/^\s*xref/.test(head)) return this.readTable(offset + head.indexOf('xref') + 4);
    const header = objectHeaderAt(this.bytes, offset);
    if (!header) throw damaged('no section at startxref');
    return this.readStream(offset + header.length);
  }

  /** A classic table: subsections of 20-byte rows, then `trailer` and its dictionary. */
  private readTable(start: number): PDFDict {
    const end = this.bytes.indexOf('trailer', start, 'latin1');
    if (end < 0) throw damaged('a table without its trailer');
    const text = this.bytes.toString('latin1', start, end);
    const subsection = /\s*(\d+)\s+(\d+)/y;
    const row = /\s*(\d{1,10})\s+(\d{1,5})\s+([fn])/y;
    let at = 0;
    let listed = 0;
    for (;;) {
      subsection.lastIndex = at;
      const head = subsection.exec(text);
      if (!head) break;
      const first = Number(head[1]);
      const count = Number(head[2]);
      listed += count;
      if (listed > objectLimit(this.bytes.length)) throw overDeclared(listed, this.bytes.length);
      row.lastIndex = subsection.lastIndex;
      for (let i = 0; i < count; i++) {
        const entry = row.exec(text);
        if (!entry) throw damaged('a table row cut short');
        this.record(
          first + i,
          entry[3] === 'n'
            ? { kind: 'direct', offset: Number(entry[1]), generation: Number(entry[2]) }
            : { kind: 'free' },
        );
      }
      at = row.lastIndex;
    }
    const trailer = this.parseObjectAt(end + 'trailer'.length);
    if (!(trailer instanceof PDFDict)) throw damaged('a trailer that is not a dictionary');
    // A hybrid file's stream section completes the table it sits beside.
    const stream = integerIn(trailer, 'XRefStm');
    if (stream !== undefined) {
      try {
        this.read(stream);
      } catch (error) {
        if (!(error instanceof DamagedCrossReference)) throw error;
      }
    }
    return trailer;
  }

  /** A cross-reference stream: rows of /W field widths for the subsections /Index lists. */
  private readStream(start: number): PDFDict {
    const stream = this.parseObjectAt(start);
    if (!(stream instanceof PDFRawStream) || stream.dict.get(PDFName.of('Type')) !== PDFName.of('XRef')) {
      throw damaged('no cross-reference stream at startxref');
    }
    const { dict } = stream;
    const limit = objectLimit(this.bytes.length);
    const size = integerIn(dict, 'Size');
    if (size === undefined || size < 0) throw damaged('a stream section without its size');
    if (size > limit) throw overDeclared(size, this.bytes.length);
    const widths = dict.get(PDFName.of('W'));
    const w =
      widths instanceof PDFArray ? widths.asArray().map((v) => (v instanceof PDFNumber ? v.asNumber() : -1)) : [];
    if (w.length !== 3 || w.some((v) => !Number.isInteger(v) || v < 0 || v > 8) || w[1] === 0) {
      throw damaged('a stream section with field widths out of range');
    }
    const index = dict.get(PDFName.of('Index'));
    const bounds =
      index instanceof PDFArray ? index.asArray().map((v) => (v instanceof PDFNumber ? v.asNumber() : -1)) : [0, size];
    if (bounds.length % 2 !== 0 || bounds.some((v) => !Number.isInteger(v) || v < 0)) {
      throw damaged('a stream section with a damaged index');
    }
    let rows = 0;
    for (let i = 1; i < bounds.length; i += 2) rows += bounds[i];
    if (rows > limit) throw overDeclared(rows, this.bytes.length);
    const rowWidth = w[0] + w[1] + w[2];
    // Rows past those declared are not needed: decoding stops there, a bomb's or not.
    const data = decodeStopping(stream, rows * rowWidth);
    if (data.length < rows * rowWidth) throw damaged('a stream section shorter than its rows');
    let at = 0;
    const field = (width: number) => {
      let value = 0;
      for (let i = 0; i < width; i++) value = value * 256 + data[at++];
      return value;
    };
    for (let i = 0; i < bounds.length; i += 2) {
      for (let n = 0; n < bounds[i + 1]; n++) {
        const type = w[0] === 0 ? 1 : field(w[0]);
        const second = field(w[1]);
        const third = field(w[2]);
        const number = bounds[i] + n;
        if (type === 1) this.record(number, { kind: 'direct', offset: second, generation: third });
        else if (type === 2) this.record(number, { kind: 'compressed', stream: second, index: third });
        else if (type === 0) this.record(number, { kind: 'free' });
      }
    }
    return dict;
  }
}

/** A stream's first `length` decoded bytes (or all of them when fewer), decoding no further. */
function decodeStopping(stream: PDFRawStream, length: number): Uint8Array {
  try {
    return decodeWithin(stream, new DecodeBudget(length)) ?? new Uint8Array();
  } catch (error) {
    if (error instanceof PdfUnreadable) throw damaged('a stream section longer than its rows');
    throw damaged(`a stream section that does not decode: ${(error as Error).message}`);
  }
}

const NAMING_KEYS = ['Root', 'Info', 'Encrypt', 'ID'];

/**
 * The document's cross-reference, newest entries first. Throws
 * DamagedCrossReference when it cannot be read (rebuild it from the objects),
 * PdfUnreadable 'corrupt' when a section declares more objects than the file
 * could hold.
 */
export function readCrossReference(bytes: Buffer): CrossReference {
  const tailStart = Math.max(0, bytes.length - TAIL_BYTES);
  const tail = bytes.toString('latin1', tailStart);
  const keyword = tail.lastIndexOf('startxref');
  if (keyword < 0) throw damaged('no startxref');
  const offset = /^startxref\s+(\d+)/.exec(tail.slice(keyword));
  if (!offset) throw damaged('startxref without an offset');
  const reader = new SectionReader(bytes);
  const trailer = PDFContext.create().obj({}) as PDFDict;
  const visited = new Set<number>();
  let next: number | undefined = Number(offset[1]);
  while (next !== undefined) {
    if (visited.has(next) || visited.size >= MAX_SECTIONS) throw damaged('sections that loop');
    visited.add(next);
    let section: PDFDict;
    try {
      section = reader.read(next);
    } catch (error) {
      if (error instanceof PdfUnreadable || error instanceof DamagedCrossReference) throw error;
      throw damaged(`a section that does not parse: ${(error as Error).message}`);
    }
    for (const key of NAMING_KEYS) {
      const value = section.get(PDFName.of(key));
      if (value !== undefined && !trailer.has(PDFName.of(key))) trailer.set(PDFName.of(key), value);
    }
    next = integerIn(section, 'Prev');
  }
  return { entries: reader.entries, trailer };
}
