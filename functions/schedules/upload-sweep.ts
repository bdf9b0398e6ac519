import { loadSecrets } from '../../lib/config';
import { withSignalsFlushed } from '../../lib/observability/flush';
import { sweepStaleUploads } from '../../lib/uploads/sweep-service';

export const handler = withSignalsFlushed(async () => {
  await loadSecrets();
  return sweepStaleUploads();
});
