/** Table keys of exports (lib/db/keys.ts describes the table). */

export const exportKeys = {
  export: (id: string) => ({ pk: `EXPORT#${id}`, sk: 'EXPORT' }),
  /** The latest export asked for one scope, format and filter: a repeat while it is pending reuses it. */
  exportRequest: (teamId: string, scope: string, scopeId: string, format: string, approvedOnly: boolean) => ({
    pk: `EXPORTREQ#${teamId}#${scope}#${scopeId}`,
    sk: `${format}#${approvedOnly ? 'approved' : 'all'}`,
  }),
} as const;
