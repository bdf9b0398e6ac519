/**
 * Every HTTP route the service has. The serverless function list
 * (functions/manifest.js) and the OpenAPI document are both derived from this
 * table, so a route added here is deployed and documented at once.
 */
import { activityRoutes } from '../activity/routes';
import { authRoutes } from '../auth/routes';
import { claimRoutes } from '../claims/routes';
import { healthRoutes } from '../health/routes';
import { roomRoutes } from '../rooms/routes';
import { docsRoutes } from './docs-routes';
import type { RouteContract } from './route';

const groups: Record<string, RouteContract>[] = [healthRoutes, docsRoutes, authRoutes, claimRoutes, roomRoutes, activityRoutes];
groups.push((require('../billing/routes') as typeof import('../billing/routes')).billingRoutes); // billing

export const routeTable: RouteContract[] = groups.flatMap((g) => Object.values(g));
