/**
 * Covers: lib/photos/upload-rules.ts (photos and PDF contents lists), lib/photos/rules.ts (names, keys, metadata filenames, indexFromFilename),
 * lib/photos/schemas.ts (upload request bodies), lib/text.ts extensionOf as the upload uses it.
 */
import { isSafeFileName } from '../../../lib/blob/client';
import {
  decodeMetaFilename,
  documentKey,
  encodeMetaFilename,
  indexFromFilename,
  isPipelinePicture,
  origFilename,
  pdfFilename,
  photoKeyOfPath,
  photoObjectKeys,
  servedContentType,
} from '../../../lib/photos/rules';
import { photoUrl } from '../../../lib/photos/view';
import { appendPhotosBody, confirmPhotosBody, uploadPhotosBody } from '../../../lib/photos/schemas';
import {
  arrivedUploadProblem,
  batchBytes,
  batchIndices,
  classifyFile,
  EMPTY_FILE,
  fitsReservation,
  IMAGE_EXTENSIONS,
  manifestParts,
  manifestProblem,
  MAX_PDFS_PER_UPLOAD,
  MB,
  nextIndexAfter,
  overCapDetail,
  photoCapBytes,
  photoUploadContentType,
  reservationCeiling,
  SINGLE_PDF_MAX_BYTES,
  SINGLE_PHOTO_MAX_BYTES,
  skippedDocuments,
  sniffedTypeProblem,
  startingStatus,
  takesDocuments,
  takesPhotosProblem,
  unknownDocumentsProblem,
  arrivedDocumentProblem,
  confirmedDocuments,
  confirmRequestProblem,
  documentReadStep,
  newPdfDocuments,
  NO_DOCUMENT_ARRIVED,
  NOT_ARRIVED,
  PDF_CONTENT_TYPE,
  photoCountHint,
} from '../../../lib/photos/upload-rules';
import type { PdfDocument } from '../../../lib/jobs/job-record-rules';
import { BMP_NOT_SUPPORTED, type ImageType } from '../../../lib/media/sniff';
import { extensionOf } from '../../../lib/text';

describe('extension classification', () => {
  it.each(IMAGE_EXTENSIONS.flatMap((ext) => [`photo.${ext}`, `PHOTO.${ext.toUpperCase()}`]))(
    '%s is an image',
    (name) => {
      expect(classifyFile(name)).toBe('image');
    },
  );

  it.each([
    ['contents.pdf', 'pdf'],
    ['Contents List.PDF', 'pdf'],
    ['notes.txt', 'other'],
    ['movie.mp4', 'other'],
    ['vector.svg', 'other'],
    ['no-extension', 'other'],
    ['archive.jpg.zip', 'other'],
    ['trailing.', 'other'],
  ])('%s is %s', (name, kind) => {
    expect(classifyFile(name)).toBe(kind);
  });

  it('reads the extension of the last path segment only', () => {
    expect(extensionOf('dir.jpg/file')).toBe('');
    expect(extensionOf('C:\\Users\\me\\IMG_1.HEIC')).toBe('heic');
    expect(extensionOf('a.b.c.WebP')).toBe('webp');
  });
});

describe('numbering', () => {
  it('names files orig_ with at least four digits', () => {
    expect(origFilename(0)).toBe('orig_0000.jpg');
    expect(origFilename(7)).toBe('orig_0007.jpg');
    expect(origFilename(1234)).toBe('orig_1234.jpg');
    expect(origFilename(123456)).toBe('orig_123456.jpg');
  });

  it('numbers from start_index when given', () => {
    expect(batchIndices(3, { startIndex: 10 })).toEqual([10, 11, 12]);
  });

  it('takes the range an atomic ADD of the batch size handed out', () => {
    // counter was 4, ADD 3 → 7: the batch owns 4, 5, 6
    expect(batchIndices(3, { counterAfter: 7 })).toEqual([4, 5, 6]);
    // a first batch of a new job: counter 0 → n
    expect(batchIndices(2, { counterAfter: 2 })).toEqual([0, 1]);
  });

  it('moves the counter past every number used and never back', () => {
    expect(nextIndexAfter(0, [0, 1, 2])).toBe(3);
    expect(nextIndexAfter(3, [10, 11])).toBe(12);
    expect(nextIndexAfter(20, [10, 11])).toBe(20);
  });

  it('keeps photos under the job prefix, the JPEG under photos/ and the upload under incoming/', () => {
    expect(photoObjectKeys('teams/t/claims/c/jobs/j/', 3)).toEqual({
      filename: 'orig_0003.jpg',
      key: 'teams/t/claims/c/jobs/j/photos/orig_0003.jpg',
      incomingKey: 'teams/t/claims/c/jobs/j/incoming/000003',
    });
  });

  it('names the photos taken out of a contents list pdf_####.jpg', () => {
    expect(pdfFilename(42)).toBe('pdf_0042.jpg');
    expect(pdfFilename(12345)).toBe('pdf_12345.jpg');
    expect(indexFromFilename(pdfFilename(42))).toBe(42);
  });

  it('keeps contents lists under the job prefix, in documents/', () => {
    expect(documentKey('teams/t/claims/c/jobs/j/', 2)).toBe('teams/t/claims/c/jobs/j/documents/2.pdf');
  });

  it('finds the object key behind a served photo path, and nothing for any other path', () => {
    const job = '0b6f5d3e-8f0a-4c55-9e2a-2f4f6d7c8b9a';
    expect(photoKeyOfPath(photoUrl(job, 'orig_0003.jpg'), 't', 'c')).toBe(
      `teams/t/claims/c/jobs/${job}/photos/orig_0003.jpg`,
    );
    expect(photoKeyOfPath(photoUrl(job, 'item_0004.jpg'), 't', 'c')).toBe(
      `teams/t/claims/c/jobs/${job}/photos/item_0004.jpg`,
    );
    for (const path of [
      null,
      '',
      `/api/photos/${job}/../secret.jpg`,
      `/api/photos/${job}/%2E%2E%2Fsecret.jpg`,
      `/api/photos/${job}/%E0%A4%A`,
      `/api/photos/not-a-job/orig_0001.jpg`,
      `https://elsewhere.example/api/photos/${job}/orig_0001.jpg`,
    ])
      expect(photoKeyOfPath(path, 't', 'c')).toBeNull();
  });

  it('finds the index in a stored name', () => {
    expect(indexFromFilename('orig_0003.jpg')).toBe(3);
    expect(indexFromFilename('orig_123456.jpg')).toBe(123456);
    expect(indexFromFilename('pdf_0012.jpg')).toBe(12);
    expect(indexFromFilename('orig.jpg')).toBeNull();
    expect(indexFromFilename('..%2Forig_0001.jpg')).toBeNull();
  });

  it("tells a pipeline's pictures (no staged row) from staged photos", () => {
    expect(isPipelinePicture('vid_1a2b3c4d_0001_closeup.jpg')).toBe(true);
    expect(isPipelinePicture('orig_0001.jpg')).toBe(false);
    expect(isPipelinePicture('item_0001.jpg')).toBe(false);
  });
});

describe('byte reservation', () => {
  const cap = photoCapBytes(8000);

  it('counts MAX_PHOTO_UPLOAD_MB in MiB', () => {
    expect(cap).toBe(8000 * 1024 * 1024);
    expect(photoCapBytes(0.5)).toBe(512 * 1024);
  });

  it('lets a batch in while reserved + batch stays within the cap', () => {
    expect(fitsReservation(0, cap, cap)).toBe(true);
    expect(fitsReservation(cap - 10, 10, cap)).toBe(true);
    expect(fitsReservation(cap - 10, 11, cap)).toBe(false);
  });

  it('turns the rule into the ceiling of the conditional ADD', () => {
    const batch = 300 * MB;
    const ceiling = reservationCeiling(batch, cap);
    expect(ceiling).toBe(cap - batch);
    // reserved <= ceiling ⇔ reserved + batch <= cap
    for (const reserved of [0, ceiling - 1, ceiling, ceiling + 1])
      expect(reserved <= ceiling).toBe(fitsReservation(reserved, batch, cap));
    expect(reservationCeiling(cap + 1, cap)).toBeLessThan(0);
  });

  it('sums the declared sizes of a batch', () => {
    expect(
      batchBytes([
        { filename: 'a.jpg', size: 5 },
        { filename: 'b.png', size: 7 },
      ]),
    ).toBe(12);
  });
});

describe('manifest checks (first problem wins, nothing written)', () => {
  const cap = photoCapBytes(8000);
  const ok = { filename: 'a.jpg', size: 1000 };

  it('accepts a batch of images within the limits', () => {
    expect(
      manifestProblem([ok, { filename: 'b.HEIC', size: SINGLE_PHOTO_MAX_BYTES }], { capBytes: cap, append: false }),
    ).toBeNull();
  });

  it('accepts PDF contents lists when an upload starts, with photos or alone', () => {
    expect(manifestProblem([ok, { filename: 'list.pdf', size: 10 }], { capBytes: cap, append: false })).toBeNull();
    expect(manifestProblem([{ filename: 'List.PDF', size: 0 }], { capBytes: cap, append: false })).toBeNull();
  });

  it('refuses a PDF on append with 400 naming it', () => {
    const problem = manifestProblem([ok, { filename: 'list.pdf', size: 10 }], { capBytes: cap, append: true });
    expect(problem).toEqual({
      status: 400,
      detail:
        'A PDF cannot be appended to a photo upload: contents lists are accepted only when an upload starts. (list.pdf)',
    });
  });

  it(`refuses more than ${MAX_PDFS_PER_UPLOAD} PDFs with 400`, () => {
    const pdfs = (n: number) => Array.from({ length: n }, (_, i) => ({ filename: `list-${i}.pdf`, size: 10 }));
    expect(manifestProblem(pdfs(MAX_PDFS_PER_UPLOAD), { capBytes: cap, append: false })).toBeNull();
    expect(manifestProblem([ok, ...pdfs(MAX_PDFS_PER_UPLOAD + 1)], { capBytes: cap, append: false })).toEqual({
      status: 400,
      detail: 'At most 20 PDF contents lists per upload; this one lists 21. Start another upload for the rest.',
    });
  });

  it('refuses a PDF over 512 MiB with 413 naming it, and does not count PDFs against MAX_PHOTO_UPLOAD_MB', () => {
    const big = { filename: 'vendor.pdf', size: SINGLE_PDF_MAX_BYTES };
    expect(manifestProblem([ok, big], { capBytes: 2000, append: false })).toBeNull();
    const problem = manifestProblem([ok, { ...big, size: SINGLE_PDF_MAX_BYTES + 1 }], { capBytes: cap, append: false });
    expect(problem).toMatchObject({ status: 413 });
    expect(problem!.detail).toMatch(/^vendor\.pdf is larger than the 512 MiB limit for a PDF contents list/);
    expect(manifestProblem([{ filename: 'a.jpg', size: 3000 }, big], { capBytes: 2000, append: false })).toEqual({
      status: 413,
      detail: overCapDetail(2000),
    });
  });

  it('names PDFs among the accepted types when an upload starts, not on append', () => {
    const start = manifestProblem([{ filename: 'notes.txt', size: 1 }], { capBytes: cap, append: false });
    expect(start!.detail).toMatch(/Accepted: photos \(jpg, .*\) and PDF contents lists \(pdf\)\.$/);
    const append = manifestProblem([{ filename: 'notes.txt', size: 1 }], { capBytes: cap, append: true });
    expect(append!.detail).not.toMatch(/pdf/i);
  });

  it('refuses a non-image extension with 400 naming the file', () => {
    const problem = manifestProblem([ok, { filename: 'notes.txt', size: 10 }], { capBytes: cap, append: false });
    expect(problem).toMatchObject({ status: 400 });
    expect(problem!.detail).toContain('notes.txt');
  });

  it('refuses a photo over 100 MB with 413', () => {
    const problem = manifestProblem([ok, { filename: 'huge.jpg', size: SINGLE_PHOTO_MAX_BYTES + 1 }], {
      capBytes: cap,
      append: false,
    });
    expect(problem).toMatchObject({ status: 413 });
    expect(problem!.detail).toContain('huge.jpg');
  });

  it('refuses a batch over the running cap with 413', () => {
    const files = Array.from({ length: 3 }, (_, i) => ({ filename: `p${i}.jpg`, size: 50 * MB }));
    expect(manifestProblem(files, { capBytes: 149 * MB, append: false })).toMatchObject({ status: 413 });
    expect(manifestProblem(files, { capBytes: 150 * MB, append: false })).toBeNull();
  });
});

describe('capability filenames', () => {
  it.each(['orig_0001.jpg', 'pdf_0001.jpg', 'A', 'a-b_c.d'])('%s is safe', (name) =>
    expect(isSafeFileName(name)).toBe(true),
  );
  it.each([
    '',
    '..',
    '../orig_0001.jpg',
    'a/b.jpg',
    'a\\b.jpg',
    '.hidden',
    'orig..jpg',
    '%2e%2e',
    'a b.jpg',
    'x'.repeat(129),
    'orig_0001.jpg\0',
  ])('%j is refused', (name) => expect(isSafeFileName(name)).toBe(false));
});

describe('metadata filenames', () => {
  it('round-trips UTF-8 names through header-safe text', () => {
    for (const name of ['IMG_1.jpg', 'Küche – Schrank.HEIC', '写真 1.png', 'a%20b.jpg']) {
      const encoded = encodeMetaFilename(name);
      expect(encoded).toMatch(/^[\x21-\x7e]*$/);
      expect(decodeMetaFilename(encoded)).toBe(name);
    }
    expect(decodeMetaFilename(undefined)).toBeNull();
    expect(decodeMetaFilename('%E0%A4%A')).toBe('%E0%A4%A');
  });
});

describe('request bodies', () => {
  const file = { filename: 'a.jpg', size: 10 };
  const room_id = '8f7c0a4e-1f7e-4c39-9a43-7f2d3b1c2a10';

  it('accepts a manifest with aligned capture dates', () => {
    expect(
      uploadPhotosBody.safeParse({ room_id, files: [file, file], captured_ats: ['2024-05-01T10:20:30', null] }).success,
    ).toBe(true);
    expect(appendPhotosBody.safeParse({ files: [file], start_index: 4, photo_count_hint: 30 }).success).toBe(true);
  });

  it.each([
    ['no files', { room_id, files: [] }],
    ['too many files', { room_id, files: Array.from({ length: 201 }, () => file) }],
    ['misaligned capture dates', { room_id, files: [file, file], captured_ats: ['2024-01-01'] }],
    ['a negative size', { room_id, files: [{ filename: 'a.jpg', size: -1 }] }],
    ['a fractional size', { room_id, files: [{ filename: 'a.jpg', size: 1.5 }] }],
    ['an unknown field', { room_id, files: [file], extra: true }],
    ['a bad room id', { room_id: 'kitchen', files: [file] }],
    ['numbers past the key width', { room_id, files: [file, file], start_index: 999_999 }],
  ])('refuses %s', (_label, body) => {
    expect(uploadPhotosBody.safeParse(body).success).toBe(false);
  });

  it('refuses a room_id on append; a confirm names photos, contents lists or both (emptiness is a 400 rule)', () => {
    expect(appendPhotosBody.safeParse({ room_id, files: [file] }).success).toBe(false);
    expect(confirmPhotosBody.safeParse({ indices: [0, 1, 2] }).success).toBe(true);
    expect(confirmPhotosBody.safeParse({ documents: [0] }).success).toBe(true);
    expect(confirmPhotosBody.safeParse({ indices: [], documents: [1] }).success).toBe(true);
    expect(confirmPhotosBody.safeParse({ documents: [-1] }).success).toBe(false);
    expect(confirmPhotosBody.safeParse({ documents: Array.from({ length: 21 }, (_, i) => i) }).success).toBe(false);
    expect(confirmPhotosBody.safeParse({ indices: [0], pdfs: [0] }).success).toBe(false);
  });

  it('stores photo_count_hint as a whole number', () => {
    expect(uploadPhotosBody.safeParse({ room_id, files: [file], photo_count_hint: 12 }).success).toBe(true);
    expect(uploadPhotosBody.safeParse({ room_id, files: [file], photo_count_hint: -1 }).success).toBe(false);
    expect(uploadPhotosBody.safeParse({ room_id, files: [file], photo_count_hint: 1.5 }).success).toBe(false);
  });
});

// BMP is not a photo type the upload takes (lib/media/sniff.ts BMP_NOT_SUPPORTED says why).
describe('BMP', () => {
  it('does not list bmp among the accepted extensions', () => {
    expect(IMAGE_EXTENSIONS).not.toContain('bmp');
    expect(classifyFile('Scan.BMP')).toBe('other');
  });

  it('refuses a manifest with a .bmp file with 400 naming the file', () => {
    expect(
      manifestProblem(
        [
          { filename: 'a.jpg', size: 10 },
          { filename: 'scan.bmp', size: 10 },
        ],
        { capBytes: 1e9, append: false },
      ),
    ).toEqual({
      status: 400,
      detail: expect.stringMatching(
        /^scan\.bmp is not a supported photo type\. Accepted: photos \(jpg, .*tiff\) and PDF/,
      ),
    });
  });
});

describe('which jobs take more photos (409 otherwise)', () => {
  it.each(['awaiting_grouping', 'importing_pdf'] as const)('a photo job in %s takes photos', (status) => {
    expect(takesPhotosProblem({ source_type: 'photo', status })).toBeNull();
  });

  it.each(['pending', 'analyzing', 'complete', 'error', 'awaiting_confirmation'] as const)(
    'a photo job in %s refuses them, naming its status',
    (status) => {
      expect(takesPhotosProblem({ source_type: 'photo', status })).toBe(
        `Photos can only be added while the job is awaiting grouping or importing a PDF; this job is ${status}.`,
      );
    },
  );

  it.each(['video', 'audio'] as const)('a %s job never takes photos, whatever its status', (source_type) => {
    expect(takesPhotosProblem({ source_type, status: 'awaiting_grouping' })).toBe(
      'Photos can only be added to a photo upload job.',
    );
  });
});

describe('the Content-Type of a photo POST', () => {
  it.each([
    ['image/jpeg', 'image/jpeg'],
    ['image/png', 'image/png'],
    ['image/heic', 'image/heic'],
    ['image/heif', 'image/heif'],
    ['image/webp', 'image/webp'],
    ['image/gif', 'image/gif'],
    ['image/tiff', 'image/tiff'],
    [' Image/JPEG ', 'image/jpeg'],
  ])('keeps the declared image type %j as %s', (declared, type) => {
    expect(photoUploadContentType(declared)).toBe(type);
  });

  it.each([undefined, '', 'text/html', 'image/svg+xml', 'image/bmp', 'application/pdf', 'image/jpeg; charset=x'])(
    'sends %j as neutral binary',
    (declared) => {
      expect(photoUploadContentType(declared)).toBe('application/octet-stream');
    },
  );
});

describe('what the confirm step refuses', () => {
  it('takes an upload of photo `index` within the size limits', () => {
    expect(arrivedUploadProblem({ size: 1, metaIndex: '4' }, 4)).toBeNull();
    expect(arrivedUploadProblem({ size: SINGLE_PHOTO_MAX_BYTES, metaIndex: undefined }, 4)).toBeNull();
  });

  it('refuses an object whose signed number is another photo, before looking at its size', () => {
    expect(arrivedUploadProblem({ size: 0, metaIndex: '5' }, 4)).toBe(
      'The upload does not belong to this photo number.',
    );
    expect(arrivedUploadProblem({ size: 10, metaIndex: '0004' }, 4)).toBe(
      'The upload does not belong to this photo number.',
    );
  });

  it('refuses an empty file and one over the 100 MB single-photo limit', () => {
    expect(arrivedUploadProblem({ size: 0, metaIndex: '4' }, 4)).toBe(EMPTY_FILE);
    expect(arrivedUploadProblem({ size: SINGLE_PHOTO_MAX_BYTES + 1, metaIndex: '4' }, 4)).toBe(
      'Larger than the 100 MB limit for a single photo.',
    );
  });

  it('takes any photo type the header shows except BMP, and refuses bytes that are no image', () => {
    for (const type of ['jpeg', 'png', 'heic', 'webp', 'gif', 'tiff'] as ImageType[])
      expect(sniffedTypeProblem(type)).toBeNull();
    expect(sniffedTypeProblem('bmp')).toBe(BMP_NOT_SUPPORTED);
    expect(sniffedTypeProblem(null)).toBe('Not a readable image (the file header is not a supported photo format).');
  });
});

describe('the type an original photo is served with', () => {
  it.each([
    ['jpeg', 'image/jpeg'],
    ['png', 'image/png'],
    ['webp', 'image/webp'],
    ['gif', 'image/gif'],
    ['tiff', 'image/tiff'],
    ['heic', 'image/heic'],
  ] as const)('serves sniffed %s as %s', (sniffed, type) => {
    expect(servedContentType(sniffed)).toBe(type);
  });

  it('serves nothing that is not an image the service takes', () => {
    expect(servedContentType('bmp')).toBeNull();
    expect(servedContentType(null)).toBeNull();
  });
});

describe('the running-cap refusal', () => {
  it('names the cap in MB and says nothing was uploaded', () => {
    expect(overCapDetail(photoCapBytes(8000))).toBe(
      'This upload would take the job past its 8000 MB photo limit (MAX_PHOTO_UPLOAD_MB). Nothing was uploaded; start a new upload for the remaining photos.',
    );
  });
});

describe('contents lists (PDFs) of an upload', () => {
  const prefix = 'teams/t/claims/c/jobs/j/';
  const doc = (document: number, state: PdfDocument['state'], message: string | null = null): PdfDocument => ({
    document,
    original_filename: `list-${document}.pdf`,
    key: documentKey(prefix, document),
    size_bytes: 100,
    state,
    pages: null,
    photos: 0,
    message,
  });
  const job = (
    documents: PdfDocument[] | undefined,
    status = 'importing_pdf' as const,
    run_id: string | null = null,
  ) => ({
    status,
    run_id,
    pdf_documents: documents,
  });

  it('splits a manifest into photos and PDFs, each keeping its place in the manifest', () => {
    const { photos, pdfs } = manifestParts([
      { filename: 'a.jpg', size: 1 },
      { filename: 'list.PDF', size: 2 },
      { filename: 'b.png', size: 3 },
    ]);
    expect(photos).toEqual([
      { filename: 'a.jpg', size: 1, position: 0 },
      { filename: 'b.png', size: 3, position: 2 },
    ]);
    expect(pdfs).toEqual([{ filename: 'list.PDF', size: 2, position: 1 }]);
  });

  it('stores the declared photo count, else the photos of the manifest', () => {
    expect(photoCountHint(undefined, 3)).toBe(3);
    expect(photoCountHint(40, 3)).toBe(40);
    expect(photoCountHint(0, 3)).toBe(0);
  });

  it('numbers the PDFs from 0 awaiting their upload; an empty one is skipped at once', () => {
    const documents = newPdfDocuments(prefix, [
      { filename: 'one.pdf', size: 500 },
      { filename: 'empty.pdf', size: 0 },
    ]);
    expect(documents).toEqual([
      {
        document: 0,
        original_filename: 'one.pdf',
        key: `${prefix}documents/0.pdf`,
        size_bytes: 500,
        state: 'awaiting_upload',
        pages: null,
        photos: 0,
        message: null,
      },
      {
        document: 1,
        original_filename: 'empty.pdf',
        key: `${prefix}documents/1.pdf`,
        size_bytes: 0,
        state: 'skipped',
        pages: null,
        photos: 0,
        message: EMPTY_FILE,
      },
    ]);
    expect(PDF_CONTENT_TYPE).toBe('application/pdf');
  });

  it('starts the job in importing_pdf only when a PDF is to arrive', () => {
    expect(startingStatus([])).toBe('awaiting_grouping');
    expect(startingStatus([doc(0, 'skipped', EMPTY_FILE)])).toBe('awaiting_grouping');
    expect(startingStatus([doc(0, 'skipped', EMPTY_FILE), doc(1, 'awaiting_upload')])).toBe('importing_pdf');
  });

  it('refuses a confirm that names nothing', () => {
    const text = 'Name the photos (indices) or the contents lists (documents) that finished uploading.';
    expect(confirmRequestProblem({})).toBe(text);
    expect(confirmRequestProblem({ indices: [], documents: [] })).toBe(text);
    expect(confirmRequestProblem({ indices: [1] })).toBeNull();
    expect(confirmRequestProblem({ documents: [0] })).toBeNull();
  });

  it('names the document numbers the job does not have', () => {
    const documents = [doc(0, 'awaiting_upload'), doc(1, 'queued')];
    expect(unknownDocumentsProblem(documents, [1, 0, 0])).toBeNull();
    expect(unknownDocumentsProblem(documents, [])).toBeNull();
    expect(unknownDocumentsProblem(documents, [2])).toBe(
      "Unknown contents list number 2: this upload's are numbered 0 to 1.",
    );
    expect(unknownDocumentsProblem(documents, [5, 3, 5, 0])).toBe(
      "Unknown contents list numbers 3, 5: this upload's are numbered 0 to 1.",
    );
    expect(unknownDocumentsProblem([], [0])).toBe('Unknown contents list number 0: this upload has no contents lists.');
  });

  it('takes what arrived for the document; refuses nothing there, another document or an empty object', () => {
    expect(arrivedDocumentProblem({ size: 10, metaDocument: '3' }, 3)).toBeNull();
    expect(arrivedDocumentProblem({ size: 10, metaDocument: undefined }, 3)).toBeNull();
    expect(arrivedDocumentProblem(null, 3)).toBe(NOT_ARRIVED);
    expect(arrivedDocumentProblem({ size: 10, metaDocument: '4' }, 3)).toBe(
      'The upload does not belong to this contents list.',
    );
    expect(arrivedDocumentProblem({ size: 0, metaDocument: '3' }, 3)).toBe(EMPTY_FILE);
  });

  it('queues what arrived, skips what did not, and keeps every settled or unnamed document', () => {
    const before = [doc(0, 'awaiting_upload'), doc(1, 'awaiting_upload'), doc(2, 'read'), doc(3, 'awaiting_upload')];
    const after = confirmedDocuments(
      before,
      new Map([
        [0, null],
        [1, NOT_ARRIVED],
        [2, NOT_ARRIVED],
      ]),
    );
    expect(after.map((d) => [d.state, d.message])).toEqual([
      ['queued', null],
      ['skipped', NOT_ARRIVED],
      ['read', null],
      ['awaiting_upload', null],
    ]);
    expect(after[2]).toBe(before[2]);
    expect(after[3]).toBe(before[3]);
    // a repeat changes nothing
    const again = confirmedDocuments(after, new Map([[0, NOT_ARRIVED]]));
    expect(again.every((d, i) => d === after[i])).toBe(true);
  });

  it('takes document states only while the job waits for its read, unstarted', () => {
    expect(takesDocuments({ status: 'importing_pdf', run_id: null })).toBe(true);
    expect(takesDocuments({ status: 'importing_pdf', run_id: 'r1' })).toBe(false);
    expect(takesDocuments({ status: 'awaiting_grouping', run_id: null })).toBe(false);
  });

  it('starts the read once every document is settled and one arrived, and ends the wait when none did', () => {
    expect(documentReadStep(job([doc(0, 'queued'), doc(1, 'skipped')]))).toBe('start');
    expect(documentReadStep(job([doc(0, 'queued'), doc(1, 'awaiting_upload')]))).toBe('wait');
    expect(documentReadStep(job([doc(0, 'skipped'), doc(1, 'skipped')]))).toBe('none-arrived');
    expect(documentReadStep(job(undefined))).toBe('none-arrived');
    expect(documentReadStep(job([doc(0, 'queued')], 'importing_pdf', 'run-1'))).toBe('nothing');
    expect(documentReadStep({ ...job([doc(0, 'queued')]), status: 'awaiting_grouping' })).toBe('nothing');
    expect(NO_DOCUMENT_ARRIVED).toBe('None of the contents lists arrived; the photos that did are ready for grouping.');
  });

  it('reports the named skipped documents, and those confirmed after the read started, by PDF filename', () => {
    const documents = [
      doc(0, 'queued'),
      doc(1, 'skipped', NOT_ARRIVED),
      doc(2, 'skipped', null),
      doc(3, 'awaiting_upload'),
      doc(4, 'skipped', EMPTY_FILE),
    ];
    expect(skippedDocuments(job(documents), [0, 1, 2, 3])).toEqual([
      { filename: 'list-1.pdf', reason: NOT_ARRIVED, index: null },
      { filename: 'list-2.pdf', reason: NOT_ARRIVED, index: null },
    ]);
    expect(skippedDocuments(job(documents, 'importing_pdf', 'run-1'), [3, 4])).toEqual([
      { filename: 'list-3.pdf', reason: expect.stringMatching(/^Confirmed too late/), index: null },
      { filename: 'list-4.pdf', reason: EMPTY_FILE, index: null },
    ]);
    expect(skippedDocuments(job(undefined), [0])).toEqual([]);
  });
});
