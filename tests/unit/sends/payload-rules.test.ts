import { publicBase, publicPhotoUrls } from '../../../lib/sends/payload-rules';

describe('public photo URLs', () => {
  const photos = [
    { job_id: 'j', filename: 'c.jpg', is_primary: false, ordering: 2 },
    { job_id: 'j', filename: 'b.jpg', is_primary: false, ordering: 1 },
    { job_id: 'j', filename: 'a.jpg', is_primary: true, ordering: 3 },
  ];
  it('puts the primary first, then the rest by ordering, under the public base URL', () => {
    expect(publicPhotoUrls(photos, 'https://inv.test//').map((p) => p.url)).toEqual([
      'https://inv.test/api/photos/j/a.jpg',
      'https://inv.test/api/photos/j/b.jpg',
      'https://inv.test/api/photos/j/c.jpg',
    ]);
  });
  it('gives none without a public base URL', () => {
    expect(publicPhotoUrls(photos, '  ')).toEqual([]);
    expect(publicBase(' https://x/ ')).toBe('https://x');
  });
});
