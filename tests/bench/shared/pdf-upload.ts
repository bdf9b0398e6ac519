/**
 * A contents list as the PDF benchmarks upload it: a room's photo job with
 * the PDF posted to the bucket as the browser does, and the gateway's answer
 * to its recipe call.
 */
import { CARD_GRID_RECIPE } from '../../support/pdf-fixtures';
import { postDocument } from '../../support/uploads';
import type { Api } from '../api';

/** The gateway's answer to a recipe call: the card-grid recipe the tests use. */
export const CARD_GRID_RECIPE_ANSWER = { items: [], content: CARD_GRID_RECIPE };

/** A room's photo job with `pdf` posted as the browser does, not yet confirmed. */
export async function postedDocument(api: Api, claimId: string, filename: string, pdf: Buffer) {
  const room = await api.call('POST', `/api/claims/${claimId}/rooms`, { name: `Room ${filename}` });
  const started = await api.call('POST', '/api/upload-photos', {
    room_id: room.id,
    files: [{ filename, size: pdf.length, content_type: 'application/pdf' }],
  });
  const posted = await postDocument(started.documents[0], pdf);
  if (posted.status !== 204) throw new Error(`PDF POST: ${posted.status} ${posted.text.slice(0, 200)}`);
  return started.job.id as string;
}
