/**
 * The grammar and meaning of a host allow-list setting
 * (CAPTURE_SOURCE_DOWNLOAD_HOSTS): a comma list whose entries are
 *   host, host:port     https to that host (port 443 unless given)
 *   *.domain            https to any host under the domain (not the domain itself), port 443 unless given
 *   https://…           the same as without the prefix
 *   http://host:port    plain http, for a loopback host only (localhost, 127.x.x.x, [::1]): local fakes
 * Pure. The schema refuses an entry that is none of these, saying why, so a
 * typo stops start-up instead of refusing every download.
 */

export interface HostRule {
  protocol: 'https:' | 'http:';
  /** Lower case; for a wildcard, the domain its hosts end in. */
  hostname: string;
  wildcard: boolean;
  port: number;
}

const DEFAULT_PORTS: Record<string, number> = { 'https:': 443, 'http:': 80 };

/** Hosts that never leave the machine: the only ones plain http may reach. */
export function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname) ||
    hostname === '[::1]'
  );
}

const isIpLiteral = (hostname: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(hostname) || hostname.startsWith('[');

/** One entry as a rule, or why it is not one. */
export function parseHostRule(entry: string): HostRule | string {
  const text = entry.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https')
    return `${text}: only https:// or http:// may come before a host`;
  const protocol = scheme === 'http' ? 'http:' : 'https:';
  const rest = scheme === undefined ? text : text.slice(scheme.length + 3);
  const wildcard = rest.startsWith('*.');
  const host = wildcard ? rest.slice(2) : rest;
  if (!host || /[/?#@*\\]/.test(host)) return `${text}: must be a host, host:port or *.domain, without a path`;
  let url: URL;
  try {
    url = new URL(`${protocol}//${host}`);
  } catch {
    return `${text}: not a host name`;
  }
  if (wildcard && (protocol === 'http:' || isIpLiteral(url.hostname)))
    return `${text}: a wildcard names the https hosts under a domain`;
  if (protocol === 'http:' && !isLoopbackHost(url.hostname))
    return `${text}: plain http is allowed for loopback test hosts only (localhost, 127.x.x.x, [::1])`;
  return { protocol, hostname: url.hostname, wildcard, port: Number(url.port) || DEFAULT_PORTS[protocol] };
}

/** The rules of a list the schema accepted (an entry that is not one is left out). */
export function hostRules(entries: readonly string[]): HostRule[] {
  return entries.map(parseHostRule).filter((rule): rule is HostRule => typeof rule !== 'string');
}

/** Whether a rule allows this URL: its scheme, its host and its port. */
export function hostAllowed(url: URL, rules: readonly HostRule[]): boolean {
  const port = Number(url.port) || DEFAULT_PORTS[url.protocol];
  return rules.some(
    (rule) =>
      rule.protocol === url.protocol &&
      rule.port === port &&
      (rule.wildcard ? url.hostname.endsWith(`.${rule.hostname}`) : url.hostname === rule.hostname),
  );
}
