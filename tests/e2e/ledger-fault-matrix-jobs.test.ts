/**
 * The ledger fault matrix (tests/support/fault-matrix.ts) for the job paths:
 * the Process click of a photo job, of a video and an audio job of two
 * seconds (one block: 3 credits of video, 1 of audio at the test service's
 * prices) and of a contents-list (PDF) job (its photo taken out of the list),
 * and a read-the-rest pass over a photo whose answer was cut short; each ×
 * every fault, armed and disarmed, through the real routes, recovered by the
 * stack's own schedules. One file: its cells mostly wait for the same ticks of
 * the schedules, and five paths are the five tests jest runs at once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { faultMatrix } from '../support/fault-matrix';
import { contentsListPath, photoJobPath, readTheRestPath, recordingPath } from '../support/fault-matrix-jobs';
import { shortRecordings } from '../support/recording-jobs';

jest.setTimeout(480_000);

const SECONDS = 2;
let recordings: Record<'video' | 'audio', Buffer>;
let mediaDir: string;
beforeAll(() => {
  mediaDir = mkdtempSync(join(tmpdir(), 'ledger-matrix-'));
  recordings = shortRecordings(mediaDir, SECONDS);
});
afterAll(() => rmSync(mediaDir, { recursive: true, force: true }));

faultMatrix('Ledger fault matrix, jobs', [
  photoJobPath,
  recordingPath('video', 3, () => ({ bytes: recordings.video, seconds: SECONDS })),
  recordingPath('audio', 1, () => ({ bytes: recordings.audio, seconds: SECONDS })),
  contentsListPath,
  readTheRestPath,
]);
