/**
 * A homeowner photo's thumbnail (spec: Insured link, public: thumb): a JPEG
 * at most 640 px on its long edge, upright, made on the first request and
 * kept in the bucket next to the photo; later requests only redirect. Its own
 * module: it decodes images (sharp, in its own Lambda layer), which no other
 * homeowner route needs.
 */
import { presignedGet } from '../blob/client';
import { headObject, putJpeg, readObject } from '../blob/objects';
import { s3ForTeam } from '../blob/team-credentials';
import { settings as currentSettings } from '../config';
import { NotFoundError } from '../errors';
import { HttpResponse } from '../http/response';
import { normalizePhoto } from '../media/normalize';
import { openLink, type PublicCaller } from './access-service';
import { setDraftFileThumb } from './draft-store';
import { draftFileFolder, loadDraftFile } from './file-service';

/** Long edge of a file's thumbnail (spec: Insured link limits). */
const THUMB_LONG_EDGE = 640;

/**
 * GET .../{token}/files/{file_id}/thumb: 302 to a 640 px (long edge) JPEG of
 * a photo, made on the first request and kept. 404 for videos and voice notes.
 */
export async function redirectToFileThumb(token: string, fileId: string, caller: PublicCaller = {}) {
  const link = await openLink(token, 'read', caller);
  const file = await loadDraftFile(link, fileId);
  if (file.kind !== 'photo' || file.status !== 'ready') throw new NotFoundError('File not found');
  // In a folder of its own: a homeowner's file name (one path segment) never names it, so no POST replaces it.
  const thumbKey = `${draftFileFolder(link, file.id)}thumb/${THUMB_LONG_EDGE}.jpg`;
  const client = await s3ForTeam(link.team_id);
  if (!file.thumb_key || !(await headObject(thumbKey, client))) {
    const original = await readObject(file.key, client);
    if (!original) throw new NotFoundError('File not found');
    const { jpeg } = await normalizePhoto(original.body, { maxLongEdge: THUMB_LONG_EDGE, quality: 80 }).catch(() => {
      throw new NotFoundError('This photo cannot be read.');
    });
    await putJpeg(thumbKey, jpeg, client);
    await setDraftFileThumb(file, thumbKey);
  }
  const ttl = currentSettings().PRESIGNED_URL_TTL_SECONDS;
  return HttpResponse.redirect(
    await presignedGet(thumbKey, { contentType: 'image/jpeg', disposition: 'inline' }, ttl, client),
  );
}
