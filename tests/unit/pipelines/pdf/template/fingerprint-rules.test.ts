/** Covers: lib/pipelines/pdf/template/fingerprint-rules.ts (the layout fingerprint a learned recipe is filed under). */
import {
  closestSignature,
  documentFingerprint,
  type LayoutSignature,
  maskDigits,
  MIN_SIGNATURE_LINES,
  repeatingLines,
  signaturesMatch,
} from '../../../../../lib/pipelines/pdf/template/fingerprint-rules';

const LETTER = { pageWidth: 612, pageHeight: 792 };
const PRODUCER = 'PackOut Pro 4.2.1 (build 311)';

interface Claim {
  insured: string;
  claimNumber: string;
  items: string[];
}

/** One vendor's card-grid layout: a running header naming the claim, column titles, a footer, and items. */
function acmeDocument(claim: Claim, footer = 'Acme Restoration LLC - Confidential') {
  return claim.items.map((item, i) => [
    'Acme Restoration LLC',
    '1200 Industrial Pkwy, Suite 4, Dayton OH 45402',
    'Contents Inventory Report',
    `Insured: ${claim.insured}`,
    `Claim #: ${claim.claimNumber}`,
    'Item Description Qty Condition',
    item,
    `2 x ${item} - good condition`,
    `Photo taken 03/${10 + i}/2024 10:1${i} AM`,
    footer,
    `Page ${i + 1} of ${claim.items.length}`,
  ]);
}

const smith: Claim = {
  insured: 'Jane Smith',
  claimNumber: 'HO-2024-88731',
  items: ['Dining chair', 'Sofa', 'Lamp', 'Bookcase', 'Television'],
};
const okafor: Claim = {
  insured: 'Chinedu Okafor',
  claimNumber: 'CLM0093412-B',
  items: ['Bed frame', 'Dresser', 'Mirror'],
};

/** Another vendor: a header-runs list with other running lines. */
const otherVendor = [1, 2, 3, 4].map((page) => [
  'BlueSky Pack-Out Services',
  'Room-by-room contents list',
  `Room ${page}`,
  'Box contents',
  `Printed 2024-03-0${page}`,
  `Sheet ${page}`,
]);

const fingerprint = (
  pages: string[][],
  over: Partial<{ pageWidth: number; pageHeight: number; producer: string | null }> = {},
) => documentFingerprint({ pages, ...LETTER, producer: PRODUCER, ...over });

describe('maskDigits', () => {
  it.each([
    ['Page 3 of 10', 'Page # of #'],
    ['Page 10 of 10', 'Page # of #'],
    ['  Claim   #: HO-2024-88731 ', 'Claim #: HO-#-#'],
    ['No digits', 'No digits'],
  ])('masks %j as %j', (line, masked) => {
    expect(maskDigits(line)).toBe(masked);
  });
});

describe('repeatingLines', () => {
  it('keeps the masked lines on more than half of the pages, each page counted once, sorted', () => {
    const pages = [
      ['Header', 'Page 1', 'Header', 'Chair'],
      ['Header', 'Page 2', 'Sofa'],
      ['Page 3', 'Lamp', 'Half'],
      ['Half'],
    ];
    expect(repeatingLines(pages)).toEqual(['Page #']);
    expect(repeatingLines(pages.slice(0, 3))).toEqual(['Header', 'Page #']);
  });

  it('leaves out lines without a letter (bare page numbers, dates)', () => {
    expect(
      repeatingLines([
        ['12', '03/14/2024', 'Inventory'],
        ['13', '03/15/2024', 'Inventory'],
      ]),
    ).toEqual(['Inventory']);
  });
});

describe('documentFingerprint', () => {
  it('hashes the repeating lines, page size and producer, and is cacheable with enough of them', () => {
    const print = fingerprint(acmeDocument(smith));
    expect(print.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(print.cacheable).toBe(true);
    expect(print.pageWidth).toBe(612);
    expect(print.pageHeight).toBe(792);
    // Header (3), insured, claim, column titles, the masked 'Photo taken' line, footer and page line repeat;
    // the items and their captions do not.
    expect(print.signature).toHaveLength(9);
    expect(print.signature.every((line) => /^[0-9a-f]{64}$/.test(line))).toBe(true);
    expect([...print.signature].sort()).toEqual(print.signature);
  });

  it('gives the same hash to the same layout and claim whatever the page numbers, dates and producer version', () => {
    const fewer = { ...smith, items: smith.items.slice(0, 3) };
    expect(fingerprint(acmeDocument(fewer)).hash).toBe(fingerprint(acmeDocument(smith)).hash);
    expect(fingerprint(acmeDocument(smith), { producer: 'PackOut Pro 4.3.0 (build 402)' }).hash).toBe(
      fingerprint(acmeDocument(smith)).hash,
    );
  });

  it('changes the hash with the page size or the producer, and rounds the size to whole points', () => {
    const base = fingerprint(acmeDocument(smith)).hash;
    expect(fingerprint(acmeDocument(smith), { pageWidth: 595.28, pageHeight: 841.89 }).hash).not.toBe(base);
    expect(fingerprint(acmeDocument(smith), { producer: 'Microsoft Word' }).hash).not.toBe(base);
    expect(fingerprint(acmeDocument(smith), { producer: null }).hash).not.toBe(base);
    expect(fingerprint(acmeDocument(smith), { pageWidth: 612.2, pageHeight: 791.9 }).hash).toBe(base);
  });

  it('is never cacheable under two pages', () => {
    const print = fingerprint(acmeDocument({ ...smith, items: ['Sofa'] }));
    expect(print.cacheable).toBe(false);
    expect(fingerprint([]).cacheable).toBe(false);
  });

  it(`is never cacheable with fewer than ${MIN_SIGNATURE_LINES} repeating lines`, () => {
    const sparse = [
      ['Inventory', 'Chair'],
      ['Inventory', 'Sofa'],
    ];
    expect(fingerprint(sparse).cacheable).toBe(false);
    expect(fingerprint([...sparse.map((p) => [...p, 'Footer'])]).cacheable).toBe(true);
  });

  it('keeps no text of the claim in the signature: no insured name, no claim number, no line', () => {
    const print = fingerprint(acmeDocument(smith));
    const stored = JSON.stringify({
      signature: print.signature,
      pageWidth: print.pageWidth,
      pageHeight: print.pageHeight,
    });
    for (const text of ['Jane', 'Smith', '88731', 'HO-', 'Insured', 'Claim', 'Acme', 'Page']) {
      expect(stored).not.toContain(text);
    }
  });
});

describe('signaturesMatch', () => {
  const smithPrint = fingerprint(acmeDocument(smith));

  it('matches the same layout for two different insureds and claim numbers by overlap', () => {
    const okaforPrint = fingerprint(acmeDocument(okafor));
    expect(okaforPrint.hash).not.toBe(smithPrint.hash);
    expect(signaturesMatch(smithPrint, okaforPrint)).toBe(true);
    expect(signaturesMatch(okaforPrint, smithPrint)).toBe(true);
  });

  it('matches a near-identical layout with one footer line changed', () => {
    const changed = fingerprint(acmeDocument(smith, 'Acme Restoration LLC - Proprietary and Confidential'));
    expect(changed.hash).not.toBe(smithPrint.hash);
    expect(signaturesMatch(smithPrint, changed)).toBe(true);
  });

  it('does not match a different layout', () => {
    expect(signaturesMatch(smithPrint, fingerprint(otherVendor))).toBe(false);
  });

  it('needs the exact page size', () => {
    const a4 = fingerprint(acmeDocument(okafor), { pageWidth: 595.28, pageHeight: 841.89 });
    expect(signaturesMatch(smithPrint, a4)).toBe(false);
    expect(signaturesMatch(smithPrint, { ...smithPrint, pageHeight: 612 })).toBe(false);
  });

  const sig = (lines: string[]): LayoutSignature => ({ ...LETTER, signature: lines });

  it('needs at least three shared lines', () => {
    expect(signaturesMatch(sig(['a', 'b']), sig(['a', 'b']))).toBe(false);
    expect(signaturesMatch(sig(['a', 'b', 'c']), sig(['a', 'b', 'c', 'd', 'e']))).toBe(true);
  });

  it('needs the shared lines to be at least 0.6 of the smaller signature', () => {
    // 3 of 5 = 0.6 matches; 3 of 6 = 0.5 does not.
    expect(signaturesMatch(sig(['a', 'b', 'c', 'd', 'e']), sig(['a', 'b', 'c', 'x', 'y', 'z', 'w']))).toBe(true);
    expect(signaturesMatch(sig(['a', 'b', 'c', 'd', 'e', 'f']), sig(['a', 'b', 'c', 'x', 'y', 'z']))).toBe(false);
  });

  it('matches nothing with an empty signature', () => {
    expect(signaturesMatch(sig([]), sig([]))).toBe(false);
  });
});

describe('closestSignature', () => {
  const candidate: LayoutSignature = { ...LETTER, signature: ['a', 'b', 'c', 'd'] };

  it('picks the matching template with the largest overlap, the first of equals', () => {
    const weak = { id: 'weak', ...LETTER, signature: ['a', 'b', 'c', 'x', 'y'] };
    const strong = { id: 'strong', ...LETTER, signature: ['a', 'b', 'c', 'd', 'x'] };
    const twin = { id: 'twin', ...LETTER, signature: ['a', 'b', 'c', 'd', 'y'] };
    const other = { id: 'other', ...LETTER, signature: ['p', 'q', 'r'] };
    expect(closestSignature([other, weak, strong, twin], candidate)?.id).toBe('strong');
  });

  it('gives null when no template matches', () => {
    expect(closestSignature([], candidate)).toBeNull();
    expect(
      closestSignature([{ pageWidth: 595, pageHeight: 842, signature: ['a', 'b', 'c', 'd'] }], candidate),
    ).toBeNull();
  });
});
