import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to every address it has (A and AAAA); injectable so tests need no DNS. */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;
export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * Where a webhook may never be sent (spec 01 §6.5): IANA special-purpose ranges. IPv4-mapped IPv6
 * (`::ffff:a.b.c.d`) is matched against the IPv4 rules by BlockList itself.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata 169.254.169.254
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation TEST-NET-2
  ['203.0.113.0', 24], // documentation TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated)
  ['64:ff9b::', 96], // NAT64: a translator would carry the request to any IPv4, internal ones included
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (deprecated), embeds any IPv4
  ['3fff::', 20], // documentation
  ['fc00::', 7], // unique local (private; includes AWS metadata fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) blocked.addSubnet(net, prefix, 'ipv6');

export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** `[::1]` → `::1`: URL keeps IPv6 literals bracketed. */
export const bareHost = (hostname: string) => hostname.replace(/^\[(.*)\]$/, '$1');

export type UrlProblem = 'INVALID_URL' | 'HTTPS_REQUIRED' | 'USER_INFO_NOT_ALLOWED' | 'BLOCKED_ADDRESS';

/**
 * Registration-time check of spec 01 §6.5. Every resolved address must be public; an unresolvable host is
 * accepted (it is checked again at each send). Hosts in `allowHosts` (svc dev's
 * --unsafe-allow-webhook-hosts) are exempt from the https and address rules.
 */
export async function checkWebhookUrl(raw: string, options: { allowHosts: readonly string[]; resolve?: Resolver }): Promise<UrlProblem | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'INVALID_URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'INVALID_URL';
  if (url.username || url.password) return 'USER_INFO_NOT_ALLOWED';
  const host = bareHost(url.hostname);
  if (options.allowHosts.includes(host)) return null;
  if (url.protocol !== 'https:') return 'HTTPS_REQUIRED';
  if (isIP(host)) return isBlockedAddress(host) ? 'BLOCKED_ADDRESS' : null;
  let addresses: { address: string }[];
  try {
    addresses = await (options.resolve ?? systemResolver)(host);
  } catch {
    return null;
  }
  return addresses.some((a) => isBlockedAddress(a.address)) ? 'BLOCKED_ADDRESS' : null;
}
