/**
 * Every HTTP route the service has. The serverless function list
 * (deploy/manifest.js) and the OpenAPI document are both derived from this
 * table, so a route added here is deployed and documented at once.
 *
 * It gathers the route contracts of every domain, so it lives above them
 * (lib/api, the composition layer); lib/http stays free of domain imports.
 */
import { activityRoutes } from '../activity/routes';
import { adminRoutes } from '../admin/routes';
import { authRoutes } from '../auth/routes';
import { billingRoutes } from '../billing/routes';
import { captureRoutes } from '../imports/capture/routes';
import { claimRoutes } from '../claims/routes';
import { exportRoutes } from '../exports/routes';
import { dashboardRoutes } from '../dashboard/routes';
import { healthRoutes } from '../health/routes';
import { importRoutes } from '../imports/routes';
import { insuredDraftRoutes } from '../insured/draft-routes';
import { insuredRoutes } from '../insured/routes';
import { inventoryEditRoutes } from '../inventory/editing/edit-routes';
import { itemPhotoRoutes } from '../inventory/photos/item-photo-routes';
import { inventoryLifecycleRoutes } from '../inventory/editing/lifecycle-routes';
import { inventoryRoutes } from '../inventory/routes';
import { jobRoutes } from '../jobs/routes';
import { photoRoutes } from '../photos/routes';
import { roomRoutes } from '../rooms/routes';
import { claimsPlatformRoutes } from '../sends/claims-platform-routes';
import { estimationRoutes } from '../sends/estimation-routes';
import { settingsRoutes } from '../settings/routes';
import { trainingRoutes } from '../training/routes';
import { uploadRoutes } from '../uploads/routes';
import { docsRoutes } from '../http/docs-routes';
import type { RouteContract } from '../http/route';

const groups: Record<string, RouteContract>[] = [
  healthRoutes,
  docsRoutes,
  authRoutes,
  claimRoutes,
  roomRoutes,
  activityRoutes,
  jobRoutes,
  uploadRoutes,
  photoRoutes,
  importRoutes,
  inventoryRoutes,
  inventoryEditRoutes,
  itemPhotoRoutes,
  inventoryLifecycleRoutes,
  exportRoutes,
  estimationRoutes,
  claimsPlatformRoutes,
  insuredRoutes,
  insuredDraftRoutes,
  captureRoutes,
  billingRoutes,
  settingsRoutes,
  dashboardRoutes,
  trainingRoutes,
  adminRoutes,
];

export const routeTable: RouteContract[] = groups.flatMap((g) => Object.values(g));
