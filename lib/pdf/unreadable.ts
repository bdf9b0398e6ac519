import type { PdfUnreadableKind } from './layout';

/** What the user is told for each kind (the job's or the batch's message). */
const MESSAGES: Record<PdfUnreadableKind, string> = {
  not_pdf: 'This file is not a PDF document.',
  corrupt: 'This PDF is damaged or incomplete and cannot be read; export or download it again and upload the new copy.',
  encrypted:
    'This PDF is password-protected or encrypted; save a copy without a password or restrictions and upload that copy.',
  empty: 'This PDF has no pages.',
  too_large:
    'This PDF holds an image, a page, a font, its object streams or a colour function too large to read safely (more than 100 megapixels, drawing instructions that expand past 32 MB, fonts that expand past 32 MB each or 64 MB on a page, object streams that expand past 32 MB in all, or a colour function of more than 16 million samples); export the list again at a normal resolution and upload the new copy.',
};

/** The file cannot be read as a PDF at all; `message` is meant for the user. */
export class PdfUnreadable extends Error {
  override readonly name = 'PdfUnreadable';

  /** `message` replaces the kind's own when the reason is more particular (a sandbox's ceiling). */
  constructor(
    readonly kind: PdfUnreadableKind,
    options?: { cause?: unknown; message?: string },
  ) {
    super(options?.message ?? MESSAGES[kind], options);
  }
}
