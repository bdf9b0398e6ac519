/**
 * Which network addresses a guarded download (./guarded-download.ts) may
 * connect to. The allow-list names hosts, but a name is only as good as what
 * it resolves to: an allowed name whose DNS answers a private address (by
 * mistake, by a takeover of the record, or by rebinding between two lookups)
 * would reach the function's own network. So every address a connection is
 * about to use is checked:
 *  - a loopback host of the allow-list (localhost, 127.x.x.x, [::1]: local
 *    fakes) may reach this machine and nothing else;
 *  - any other host only public unicast addresses: never loopback, private
 *    (RFC 1918, unique local), link-local (the cloud's metadata service at
 *    169.254.169.254 among them), carrier-grade NAT, multicast, reserved or
 *    documentation ranges;
 *  - an IPv6 address that carries an IPv4 address (IPv4-mapped ::ffff:a.b.c.d,
 *    IPv4-compatible ::a.b.c.d, SIIT ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96,
 *    6to4 2002::/16) by the rules of the IPv4 address it carries: the stack or
 *    a translator on the way may deliver it there.
 * Pure.
 */
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isLoopbackHost } from '../config';

const notPublic = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  notPublic.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  notPublic.addSubnet(network, prefix, 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Ranges of IPv6 addresses whose last 32 bits are an IPv4 address (ipaddr.js's names). */
const IPV4_IN_LOW_BITS = new Set(['ipv4Mapped', 'rfc6145', 'rfc6052']);

const dotted = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/** The IPv4 address an IPv6 address carries, or null for a plain IPv6 address (or an IPv4 one). */
function embeddedIpv4(address: string): string | null {
  if (isIP(address) !== 6 || !ipaddr.IPv6.isValid(address)) return null;
  const v6 = ipaddr.IPv6.parse(address);
  const parts = v6.parts;
  const range = v6.range();
  if (IPV4_IN_LOW_BITS.has(range)) return dotted(parts[6], parts[7]);
  if (range === '6to4') return dotted(parts[1], parts[2]);
  // IPv4-compatible (::a.b.c.d, deprecated): 96 zero bits first; :: and ::1 are IPv6's own.
  if (parts.slice(0, 6).every((p) => p === 0) && (parts[6] !== 0 || parts[7] > 1)) return dotted(parts[6], parts[7]);
  return null;
}

/** The address the rules are applied to (an embedded IPv4 address in place of its IPv6 form) and its family. */
function checkedAs(address: string): [string, 'ipv4' | 'ipv6'] {
  const embedded = embeddedIpv4(address);
  if (embedded) return [embedded, 'ipv4'];
  return [address, isIP(address) === 6 ? 'ipv6' : 'ipv4'];
}

/** Whether the address is public unicast: somewhere on the internet, not on the function's own networks. */
export function isPublicAddress(address: string): boolean {
  return isIP(address) !== 0 && !notPublic.check(...checkedAs(address));
}

/** Whether the address is this machine's (127.0.0.0/8, ::1, or an IPv6 form carrying a 127.x address). */
export function isLoopbackAddress(address: string): boolean {
  return isIP(address) !== 0 && loopback.check(...checkedAs(address));
}

/** The IP address a URL's hostname is written as (IPv6 without its brackets); null for a name. */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return isIP(bare) ? bare : null;
}

/**
 * Why a connection to `address` for `hostname` (a URL's hostname, IPv6 in
 * brackets) may not be made, in words ending a sentence; null when it may.
 */
export function addressProblem(hostname: string, address: string): string | null {
  if (isLoopbackHost(hostname))
    return isLoopbackAddress(address) ? null : `${hostname} resolves to ${address}, which is not this machine`;
  if (isPublicAddress(address)) return null;
  const named = literalAddress(hostname) === address ? hostname : `${hostname} resolves to ${address}, which`;
  return `${named} is not a public address`;
}
