/**
 * undici's own fetch, for the outbound core's callers that bring their own connection pool (a `dispatcher`: the
 * guarded download's checks every address at connect time); Node's global fetch runs its own copy of undici and
 * would not take it. Part of the core, in a module of its own so that only the bundles that need it carry undici's
 * code (the core itself is in every function's bundle).
 */
import { fetch } from 'undici';

export const undiciFetch = fetch as unknown as typeof globalThis.fetch;
