/** Loading an import batch by its id for the caller (lib/tenancy/team-scope-rules.ts). */
import type { Identity } from '../auth/identity-rules';
import { ownRecordOr404 } from '../tenancy/team-scope-rules';
import { getImportBatch } from './store';
import type { ImportBatch } from './batch-record-rules';

const IMPORT_NOT_FOUND = 'Import not found';

/** An ImportBatch: 404 for a missing batch and for another team's batch. */
export async function loadImportBatchForTeam(identity: Identity, batchId: string): Promise<ImportBatch> {
  return ownRecordOr404(identity, await getImportBatch(batchId), IMPORT_NOT_FOUND);
}
