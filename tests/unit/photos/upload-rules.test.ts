/**
 * Covers: lib/photos/upload-rules.ts, lib/photos/rules.ts (names, keys, metadata filenames, indexFromFilename),
 * lib/photos/schemas.ts (upload request bodies), lib/text.ts extensionOf as the upload uses it.
 */
import { isSafeFileName } from '../../../lib/blob/client';
import {
  decodeMetaFilename,
  encodeMetaFilename,
  indexFromFilename,
  isPipelinePicture,
  origFilename,
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
  manifestProblem,
  MB,
  nextIndexAfter,
  overCapDetail,
  photoCapBytes,
  photoUploadContentType,
  reservationCeiling,
  SINGLE_PHOTO_MAX_BYTES,
  sniffedTypeProblem,
  takesPhotosProblem,
} from '../../../lib/photos/upload-rules';
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

  it('refuses a PDF with 400 and says PDF import is not available', () => {
    const problem = manifestProblem([ok, { filename: 'list.pdf', size: 10 }], { capBytes: cap, append: false });
    expect(problem).toMatchObject({ status: 400 });
    expect(problem!.detail).toMatch(/PDF contents lists are not supported by this upload yet/);
    expect(problem!.detail).toContain('list.pdf');
  });

  it('words the append refusal of a PDF as an append refusal', () => {
    const problem = manifestProblem([{ filename: 'list.pdf', size: 10 }], { capBytes: cap, append: true });
    expect(problem).toMatchObject({ status: 400 });
    expect(problem!.detail).toMatch(/cannot be appended/);
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

  it('refuses a room_id on append and an empty confirm', () => {
    expect(appendPhotosBody.safeParse({ room_id, files: [file] }).success).toBe(false);
    expect(confirmPhotosBody.safeParse({ indices: [] }).success).toBe(false);
    expect(confirmPhotosBody.safeParse({ indices: [0, 1, 2] }).success).toBe(true);
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
      detail: expect.stringMatching(/^scan\.bmp is not a supported photo type\. Accepted: jpg, .*tiff\.$/),
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
