/**
 * The ledger fault matrix (tests/support/fault-matrix.ts) for the photo
 * paths: the Process click of a photo job and of a contents-list (PDF) job
 * (its photo taken out of the list), and a read-the-rest pass over a photo
 * whose answer was cut short; each × every fault, armed and disarmed, through
 * the real routes, recovered by the stack's own schedules.
 */
import { faultMatrix } from '../support/fault-matrix';
import { contentsListPath, photoJobPath, readTheRestPath } from '../support/fault-matrix-jobs';

jest.setTimeout(420_000);

faultMatrix('Ledger fault matrix, photo paths', [photoJobPath, contentsListPath, readTheRestPath]);
