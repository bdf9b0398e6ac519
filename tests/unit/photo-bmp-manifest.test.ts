/** BMP is not a photo type the upload takes (lib/media/sniff.ts BMP_NOT_SUPPORTED says why). */
import { classifyFile, IMAGE_EXTENSIONS, manifestProblem } from '../../lib/photos/rules';

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
