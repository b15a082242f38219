import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Resolves a host name to every address it has (A and AAAA); injectable so tests need no DNS. */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;
export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * Where a webhook or an app's fetch may never go (spec 01 §6.5): IANA special-purpose ranges. IPv6 forms
 * that carry an IPv4 address are judged by that address instead (see `embeddedIPv4`).
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
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // IPv4-compatible (deprecated by RFC 4291: nothing legitimate uses it)
  ['64:ff9b:1::', 48], // local-use NAT64 (its embedding varies with the prefix length)
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (benchmarking, ORCHID; Teredo is judged by its IPv4s)
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['fc00::', 7], // unique local (private; includes AWS metadata fd00:ec2::254)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');

/**
 * The eight 16-bit groups of an IPv6 address in any spelling (compressed, dotted IPv4 tail, zone id), via
 * the WHATWG URL parser, whose serialisation is canonical: hexadecimal groups and at most one `::`.
 */
function ipv6Groups(address: string): number[] | null {
  let canonical: string;
  try {
    canonical = new URL(`http://[${address.split('%')[0]}]/`).hostname.slice(1, -1);
  } catch {
    return null;
  }
  const [head, tail] = canonical.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  return tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

const ipv4Of = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;

/**
 * The IPv4 addresses an IPv6 address stands for, in the forms a host, a translator or a relay carries
 * to IPv4: mapped `::ffff:0:0/96`, translated `::ffff:0:0:0/96` (SIIT), NAT64 `64:ff9b::/96`, 6to4
 * `2002::/16` (bits 16–47) and Teredo `2001::/32` (its server, and its client stored bit-inverted).
 * Empty for every other address.
 */
function embeddedIPv4(g: readonly number[]): string[] {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return [ipv4Of(g[6], g[7])];
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return [ipv4Of(g[6], g[7])];
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return [ipv4Of(g[6], g[7])];
  if (g[0] === 0x2002) return [ipv4Of(g[1], g[2])];
  if (g[0] === 0x2001 && g[1] === 0) return [ipv4Of(g[2], g[3]), ipv4Of(~g[6] & 0xffff, ~g[7] & 0xffff)];
  return [];
}

/**
 * The one address check of webhook URLs (registration and each send) and of apps' `fetch`: an IPv6 form
 * that carries an IPv4 address is judged by that address, so `::ffff:0:127.0.0.1` is loopback however
 * it is spelled. Anything that is not an address is blocked.
 */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const groups = ipv6Groups(address);
  if (!groups) return true;
  const carried = embeddedIPv4(groups);
  if (carried.length > 0) return carried.some((ipv4) => blocked.check(ipv4, 'ipv4'));
  return blocked.check(groups.map((x) => x.toString(16)).join(':'), 'ipv6');
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
