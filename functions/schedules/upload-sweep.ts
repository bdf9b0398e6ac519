import { loadSecrets } from '../../lib/config';
import { sweepStaleUploads } from '../../lib/uploads/sweep-service';

export const handler = async () => {
  await loadSecrets();
  return sweepStaleUploads();
};
