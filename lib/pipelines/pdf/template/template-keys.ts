/** Table keys of learned contents-list recipes (lib/db/keys.ts describes the table). */

export const templateKeys = {
  /** Learned contents-list recipes (global): one partition per page size, so a hash miss reads its neighbours once. */
  pdfTemplate: (pageWidth: number, pageHeight: number, hash: string) => ({
    pk: `PDFTEMPLATES#${pageWidth}x${pageHeight}`,
    sk: hash,
  }),
} as const;
