import { Resolver } from 'node:dns/promises';
import type { Services } from '../../../server/services.js';

/** What a look-up found: `absent` is a definite answer (no such name or record); `error` says nothing. */
type Lookup<T> = { found: T } | { absent: true } | { error: string };
const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'NOTFOUND']);

async function lookup<T>(work: () => Promise<T>): Promise<Lookup<T>> {
  try {
    return { found: await work() };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    return ABSENT.has(code) ? { absent: true } : { error: code || (error as Error).message };
  }
}

/** DNS through the configured servers (`SVC_DNS_SERVERS`), never cached here: each check asks again. */
export class DnsChecker {
  private readonly resolver = new Resolver({ timeout: 3000, tries: 2 });

  constructor(servers: string[]) {
    if (servers.length) this.resolver.setServers(servers);
  }

  txt(name: string) {
    return lookup(async () => (await this.resolver.resolveTxt(name)).map((chunks) => chunks.join('')));
  }

  caa(name: string) {
    return lookup(() => this.resolver.resolveCaa(name));
  }

  /**
   * Whether `host` points at `target`: its CNAME names it, or (root domains with CNAME flattening) its
   * addresses are the target's.
   */
  async pointsAt(host: string, target: string): Promise<Lookup<boolean>> {
    const cname = await lookup(() => this.resolver.resolveCname(host));
    if ('found' in cname && cname.found.length) return { found: cname.found.some((c) => c.toLowerCase().replace(/\.$/, '') === target) };
    if ('error' in cname) return cname;
    const [own, theirs] = await Promise.all([lookup(() => this.resolver.resolve4(host)), lookup(() => this.resolver.resolve4(target))]);
    if ('error' in own) return own;
    if ('absent' in own) return { absent: true };
    if (!('found' in theirs)) return { found: false };
    return { found: own.found.some((a) => theirs.found.includes(a)) };
  }
}

const checkers = new WeakMap<Services, DnsChecker>();
/** The deployment's DNS checker, made once. */
export const dnsOf = (services: Services) => {
  let checker = checkers.get(services);
  if (!checker) checkers.set(services, (checker = new DnsChecker(services.config.storefront.dnsServers)));
  return checker;
};
