import { loadSecrets } from '../../lib/config';
import { sweepStaleUploads } from '../../lib/uploads/sweep';

export const handler = async () => {
  await loadSecrets();
  return sweepStaleUploads();
};
