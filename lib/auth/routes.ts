import * as z from 'zod';
import { defineRoute } from '../http/route';
import { isValidTimezone } from './session-rules';

const meResponse = z.object({
  user: z.object({
    id: z.string(),
    external_id: z.string().nullable(),
    name: z.string(),
    email: z.string().nullable(),
    team_id: z.string(),
    last_seen_at: z.string().nullable(),
    timezone: z.string(),
  }),
  team: z.object({
    id: z.string(),
    external_id: z.number().nullable(),
    name: z.string(),
    team_token: z.string().nullable(),
    estimation_platform_key: z.string().nullable(),
    credit_rate: z.number().nullable(),
  }),
  is_admin: z.boolean(),
  timezone: z.string(),
  features: z.record(z.string(), z.boolean()),
});

export const authRoutes = {
  config: defineRoute({
    name: 'authConfig',
    method: 'GET',
    path: '/api/auth/config',
    auth: 'none',
    tag: 'auth',
    summary: 'The claims platform login URL, with return_to pointing at /auth/callback.',
    handler: 'api/auth/get-config',
    response: z.object({ login_url: z.string(), return_to: z.string(), cookie_name: z.string() }),
  }),
  me: defineRoute({
    name: 'getMe',
    method: 'GET',
    path: '/api/auth/me',
    auth: 'user',
    tag: 'auth',
    summary:
      'The signed-in user, team, admin flag, timezone and resolved features. Records a login when called with a bearer token.',
    handler: 'api/auth/get-me',
    response: meResponse,
  }),
  updateMe: defineRoute({
    name: 'updateMe',
    method: 'PUT',
    path: '/api/auth/me',
    auth: 'user',
    tag: 'auth',
    summary: 'Set the display timezone (IANA name, or empty for browser-local).',
    handler: 'api/auth/update-me',
    body: z.strictObject({
      timezone: z.string().max(64).refine(isValidTimezone, 'must be an IANA time zone name or empty'),
    }),
    response: meResponse,
  }),
  logout: defineRoute({
    name: 'logout',
    method: 'POST',
    path: '/api/auth/logout',
    auth: 'actor',
    tag: 'auth',
    summary: 'Records a logout activity event.',
    handler: 'api/auth/logout',
    response: z.object({ ok: z.boolean() }),
  }),
  debug: defineRoute({
    name: 'authDebug',
    method: 'GET',
    path: '/api/auth/debug',
    auth: 'user',
    tag: 'auth',
    summary: 'Resolved identity, raw JWT claims, auth mode and integration readiness; secrets masked.',
    handler: 'api/auth/get-debug',
  }),
  estimationHandoff: defineRoute({
    name: 'estimationHandoff',
    method: 'GET',
    path: '/api/sso/estimation-platform/authorize',
    auth: 'user',
    tag: 'auth',
    summary: 'A short-lived hand-off URL into the estimation platform.',
    handler: 'api/auth/estimation-handoff',
    errors: [409, 503],
    response: z.object({ redirect_url: z.string() }),
  }),
};
