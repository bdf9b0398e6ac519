/**
 * The ledger fault matrix (tests/support/fault-matrix.ts) for the sends: the
 * claims platform send and the estimation send, each as the claim's first
 * send (create) and as a later one (append), × every fault, armed and
 * disarmed, through the real routes, recovered by the stack's own schedules.
 */
import { faultMatrix } from '../support/fault-matrix';
import { claimsPlatformPath, estimationPath } from '../support/fault-matrix-sends';

jest.setTimeout(420_000);

faultMatrix('Ledger fault matrix, sends', [
  claimsPlatformPath('create'),
  claimsPlatformPath('append'),
  estimationPath('create'),
  estimationPath('append'),
]);
