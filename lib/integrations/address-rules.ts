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
 *    documentation ranges, nor an IPv6 form of one (IPv4-mapped, NAT64).
 * Pure.
 */
import { BlockList, isIP } from 'node:net';
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
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  notPublic.addSubnet(network, prefix, 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** The family BlockList names. An IPv4-mapped IPv6 address is checked against the IPv4 ranges too (BlockList does so). */
const familyOf = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** Whether the address is public unicast: somewhere on the internet, not on the function's own networks. */
export function isPublicAddress(address: string): boolean {
  return isIP(address) !== 0 && !notPublic.check(address, familyOf(address));
}

/** Whether the address is this machine's (127.0.0.0/8, ::1, or one mapped to them). */
export function isLoopbackAddress(address: string): boolean {
  return isIP(address) !== 0 && loopback.check(address, familyOf(address));
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
