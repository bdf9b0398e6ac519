/**
 * Which URLs a guarded download (./guarded-download.ts) may fetch: http(s)
 * only, on a host its allow-list names (lib/config/host-rules.ts: https, or
 * plain http where the list says so), each redirect resolved against the URL
 * it came from and checked the same way, at most MAX_REDIRECTS of them. Pure.
 * A URL appears in a reason by its origin only: a signed URL's query is a
 * credential.
 */
import { type HostRule, hostAllowed } from '../config';
import { addressProblem, literalAddress } from './address-rules';

/** Redirects followed before a download is refused. */
const MAX_REDIRECTS = 5;

/** Scheme and host of a URL (its path and query left out). */
export function originOf(url: URL): string {
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : `${url.protocol}//${url.host}`;
}

/** Why this URL may not be fetched (in words ending a sentence), or null when it may. */
function urlProblem(url: URL, hosts: readonly HostRule[], source: string): string | null {
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `${originOf(url)} is a ${url.protocol.slice(0, -1)} URL, not https`;
  if (hostAllowed(url, hosts)) {
    // An address in the URL itself is checked here: a connection to it looks no name up (./address-rules.ts).
    const address = literalAddress(url.hostname);
    return address ? addressProblem(url.hostname, address) : null;
  }
  if (url.protocol === 'http:' && hostAllowed(new URL(url.href.replace(/^http:/, 'https:')), hosts))
    return `${originOf(url)} is plain http; ${source}'s downloads are https only`;
  return `${originOf(url)} is not one of ${source}'s download hosts`;
}

/** The first URL of a download, parsed and checked: the URL, or why it is refused. */
export function checkedUrl(raw: string, hosts: readonly HostRule[], source: string): URL | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${source} gave a download URL that is not a URL`;
  }
  return urlProblem(url, hosts, source) ?? url;
}

/**
 * Where a redirect leads (its Location, relative to the URL it answered),
 * checked: the next URL, or why it is not followed.
 */
export function redirectTarget(
  location: string | null,
  from: URL,
  hops: number,
  hosts: readonly HostRule[],
  source: string,
): URL | string {
  if (hops >= MAX_REDIRECTS) return `more than ${MAX_REDIRECTS} redirects`;
  if (!location) return 'a redirect without a Location';
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    return 'a redirect to something that is not a URL';
  }
  const problem = urlProblem(next, hosts, source);
  return problem ? `a redirect was not followed: ${problem}` : next;
}
