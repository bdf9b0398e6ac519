import { extensionOf, plural } from '../../lib/text';

describe('plural', () => {
  it.each([
    [0, 'photos'],
    [1, 'photo'],
    [2, 'photos'],
  ])('%i → %s', (n, word) => {
    expect(plural(n, 'photo')).toBe(`${n} ${word}`);
  });
});

describe('extensionOf', () => {
  it.each([
    ['IMG_1.JPG', 'jpg'],
    ['a.b.c.WebP', 'webp'],
    ['archive.jpg.zip', 'zip'],
    ['C:\\Users\\me\\IMG_1.HEIC', 'heic'],
    ['/tmp/x/Clip.MP4', 'mp4'],
    ['  clip.mov  ', 'mov'],
    ['dir.jpg/file', ''],
    ['no-extension', ''],
    ['trailing.', ''],
    ['.mp4', ''],
    ['', ''],
  ])('%j → %j', (name, ext) => {
    expect(extensionOf(name)).toBe(ext);
  });
});
