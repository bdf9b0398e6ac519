/**
 * Every undoable action type and the restorer that undoes it (POST
 * /api/activity/{log_id}/restore). Each domain writes the restorers of its
 * own entries; they are put together here, above the domains, so the
 * activity feed imports none of them.
 */
import type { Restorer } from '../activity/service';
import { claimRestorers } from '../claims/service';
import { inventoryEditRestorers } from '../inventory/editing/edit-service';
import { inventoryLifecycleRestorers } from '../inventory/editing/merge-service';
import { itemPhotoRestorers } from '../inventory/photos/item-photo-service';
import { roomRestorers } from '../rooms/service';
import { automationSettingsRestorers } from '../settings/automation-service';
import { promptSettingsRestorers } from '../settings/prompt-service';

export const undoRestorers: Readonly<Record<string, Restorer>> = {
  ...claimRestorers,
  ...roomRestorers,
  ...automationSettingsRestorers,
  ...promptSettingsRestorers,
  ...inventoryEditRestorers,
  ...itemPhotoRestorers,
  ...inventoryLifecycleRestorers,
};
