/**
 * Contents lists encrypted with owner restrictions only open without a
 * password, so the reader reads them: pages, text, image placements and the
 * photos' stored JPEG bytes (decrypted), whatever the standard security
 * handler's revision. A list that needs a user password is still refused.
 */
import { openPdf, PdfUnreadable } from '../../../lib/pdf/reader';
import { type Encryption, restrictedList } from '../../support/restricted-pdfs';

const ENCRYPTIONS: Encryption[] = ['rc4-40', 'rc4-128', 'aes-128', 'aes-256', 'aes-256-r6'];

describe.each(ENCRYPTIONS)('a list with owner restrictions only, %s', (encryption) => {
  it('is read: its producer, text, image placements and photos as stored', async () => {
    const list = await restrictedList({ encryption });
    const reader = await openPdf(list.bytes);
    try {
      expect(reader.pageCount).toBe(2);
      expect(reader.producer).toBe(list.producer);
      for (const page of [1, 2]) {
        const layout = await reader.pageLayout(page);
        const photos = list.photos.filter((p) => p.page === page);
        expect(layout.texts.map((t) => t.str)).toEqual(expect.arrayContaining(photos.map((p) => p.label)));
        expect(layout.images).toHaveLength(photos.length);
        for (const photo of photos) {
          const image = layout.images.find((i) => Math.abs(i.x - photo.box.x) < 1 && Math.abs(i.y - photo.box.y) < 1);
          expect(image).toMatchObject({ pixelWidth: 320, pixelHeight: 240, jpeg: true, jpegRange: null });
          // The document's bytes are ciphertext: the photo comes decrypted from the reader, byte for byte.
          expect(Buffer.compare(await reader.imageJpeg(page, image as never), photo.jpeg)).toBe(0);
        }
      }
      expect((await reader.renderPage(1, 200)).length).toBeGreaterThan(0);
    } finally {
      await reader.close();
    }
  });
});

it("reads an AES-128 list whose key length is only its crypt filter's (no top-level /Length)", async () => {
  const list = await restrictedList({ encryption: 'aes-128', keyLengthInCryptFilter: true });
  const reader = await openPdf(list.bytes);
  try {
    expect(reader.producer).toBe(list.producer);
    const layout = await reader.pageLayout(1);
    expect(layout.texts.map((t) => t.str)).toEqual(expect.arrayContaining(['Item 1', 'Item 2']));
    const photo = list.photos[0];
    const image = layout.images.find((i) => Math.abs(i.x - photo.box.x) < 1 && Math.abs(i.y - photo.box.y) < 1);
    expect(Buffer.compare(await reader.imageJpeg(1, image as never), photo.jpeg)).toBe(0);
  } finally {
    await reader.close();
  }
});

it.each<Encryption>(['aes-256', 'aes-256-r6'])(
  'reads an update kept in an encrypted object stream (%s)',
  async (encryption) => {
    const list = await restrictedList({ encryption, objectStreamUpdate: true });
    const reader = await openPdf(list.bytes);
    try {
      expect(reader.producer).toBe(list.producer);
      expect((await reader.pageLayout(2)).images).toHaveLength(2);
    } finally {
      await reader.close();
    }
  },
);

describe.each<Encryption>(['rc4-40', 'aes-128', 'aes-256'])('a list that needs a user password, %s', (encryption) => {
  it('is refused as password-protected, with or without the rendering check', async () => {
    const list = await restrictedList({ encryption, userPassword: 'secret' });
    for (const checkRendering of [true, false]) {
      const refused = await openPdf(list.bytes, { checkRendering }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(PdfUnreadable);
      expect(refused).toMatchObject({ kind: 'encrypted' });
      expect((refused as Error).message).toMatch(/^This PDF is password-protected or encrypted/);
    }
  });
});
