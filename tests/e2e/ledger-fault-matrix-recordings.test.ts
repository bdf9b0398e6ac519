/**
 * The ledger fault matrix (tests/support/fault-matrix.ts) for the recording
 * paths: the Process click of a video and of an audio job of two seconds (one
 * block: 3 credits of video, 1 of audio at the test service's prices), each ×
 * every fault, armed and disarmed, through the real route, recovered by the
 * stack's own schedules.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { faultMatrix } from '../support/fault-matrix';
import { recordingPath } from '../support/fault-matrix-jobs';
import { shortRecordings } from '../support/recording-jobs';

jest.setTimeout(420_000);

const SECONDS = 2;
let recordings: Record<'video' | 'audio', Buffer>;
let mediaDir: string;
beforeAll(() => {
  mediaDir = mkdtempSync(join(tmpdir(), 'ledger-matrix-'));
  recordings = shortRecordings(mediaDir, SECONDS);
});
afterAll(() => rmSync(mediaDir, { recursive: true, force: true }));

faultMatrix('Ledger fault matrix, recording paths', [
  recordingPath('video', 3, () => ({ bytes: recordings.video, seconds: SECONDS })),
  recordingPath('audio', 1, () => ({ bytes: recordings.audio, seconds: SECONDS })),
]);
