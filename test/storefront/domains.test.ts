/**
 * Custom domains over HTTP with a real DNS server on loopback: hostname rules (punycode, public suffixes,
 * the service's own hosts, homographs), the states PENDING_DNS → PENDING_VALIDATION → ACTIVE by clock advance, every
 * failure code, the take-over rule, primary and removal, serving by Host, and the closed setting.
 */
import { request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fails, ok } from '../helpers/assert.js';
import { apiClient, newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { siteUrlOf } from '../helpers/sites.js';
import { longLivedApi } from '../helpers/members.js';
import { startDnsServer } from '../helpers/dns.js';
import { createProduct } from '../helpers/checkout.js';
import { createSite, ownerCli, synced } from '../helpers/site-builds.js';

let svc: TestService;
let api: Api;
let dns: Awaited<ReturnType<typeof startDnsServer>>;
let ownerCliRun: Awaited<ReturnType<typeof ownerCli>>;
const TARGET = 'domains.svc.localhost';
const MINUTE = 60;
const HOUR = 3600;
const DAY = 86_400;
/** The published version's client bundle, as a path on the connected domain. */
let clientScript: string;

test.before(async () => {
  dns = await startDnsServer();
  svc = await startTestService({ storefront: { dnsServers: dns.servers } as never });
  ownerCliRun = await ownerCli(svc);
  api = await longLivedApi(svc);
  await createSite(api);
});
test.after(async () => {
  await svc.close();
  await dns.close();
});

const list = async () => ok(await api('GET', '/v1/storefront/site/domains'));
const domainOf = async (hostname: string) => (await list()).contents.find((d: any) => d.hostname === hostname);
/** Sets the records the domain's answer asks for, as the seller would at their DNS provider. */
const configure = (domain: any, which: ('TXT' | 'CNAME')[] = ['TXT', 'CNAME']) => {
  for (const record of domain.dnsRecords) {
    if (!which.includes(record.type)) continue;
    dns.set(record.name, record.type === 'TXT' ? { TXT: [record.value] } : { CNAME: record.value });
  }
};
/** A GET to the service with another Host header (fetch cannot set it). */
const visitHost = (host: string, path = '/') =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const url = new URL(svc.url);
    const req = request({ host: url.hostname, port: url.port, path, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });

test("hostname rules: syntax, IP addresses, wildcards, public suffixes, the service's own hosts; punycode", async () => {
  for (const [hostname, reason] of [
    ['bad_host!.example.test', 'SYNTAX'],
    ['localhost', 'SYNTAX'],
    ['-shop.example.localhost', 'SYNTAX'],
    [`${'a'.repeat(64)}.example.test`, 'SYNTAX'],
    ['192.168.0.10', 'IP_ADDRESS'],
    ['[::1]', 'IP_ADDRESS'],
    ['*.example.test', 'WILDCARD'],
    ['co.kr', 'PUBLIC_SUFFIX'],
    ['github.io', 'PUBLIC_SUFFIX'],
    ['com', 'SYNTAX'],
    [TARGET, 'SERVICE_DOMAIN'],
    [`shop.${TARGET}`, 'SERVICE_DOMAIN'],
    // svc dev serves each site at `{slug}.localhost`: such a name is a slug's address, never a custom domain.
    ['other-shop.localhost', 'SERVICE_DOMAIN'],
  ] as const) {
    const refused = fails(await api('POST', '/v1/storefront/site/domains', { body: { hostname } }), 400, 'STOREFRONT_DOMAIN_INVALID');
    assert.is(refused.error.details.reason, reason, hostname);
  }
  const korean = ok(await api('POST', '/v1/storefront/site/domains', { body: { hostname: '상점.Example.test.' } }), 201);
  assert.is(korean.hostname, 'xn--hg4bs7k.example.test');
  fails(await api('POST', '/v1/storefront/site/domains', { body: { hostname: 'XN--HG4BS7K.example.test' } }), 409, 'STOREFRONT_DOMAIN_EXISTS');
  assert.equal(
    korean.dnsRecords.map((r: any) => [r.type, r.name]),
    [
      ['TXT', '_svc-verify.xn--hg4bs7k.example.test'],
      ['CNAME', 'xn--hg4bs7k.example.test'],
    ],
  );
  ok(await api('DELETE', `/v1/storefront/site/domains/${korean.domainId}`));
});

test('homographs: mixed scripts and whole-script look-alikes are refused (as Unicode or punycode); Korean names pass, answered in ASCII', async () => {
  for (const [hostname, reason, label] of [
    // Cyrillic р and а among Latin letters: reads as paypal.com.
    ['раypal.com', 'MIXED_SCRIPT', 'раypal'],
    ['xn--ypal-43d9g.com', 'MIXED_SCRIPT', 'раypal'],
    ['shop.pαypal.com', 'MIXED_SCRIPT', 'pαypal'],
    // All Cyrillic, every letter a Latin look-alike, under a Latin top-level domain: reads as apple.com.
    ['аррӏе.com', 'CONFUSABLE', 'аррӏе'],
    ['xn--80ak6aa92e.com', 'CONFUSABLE', 'аррӏе'],
  ] as const) {
    const refused = fails(await api('POST', '/v1/storefront/site/domains', { body: { hostname } }), 400, 'STOREFRONT_DOMAIN_INVALID');
    assert.equal([refused.error.details.reason, refused.error.details.label], [reason, label], hostname);
    assert.match(refused.error.details.asciiHostname, /^(?:[a-z0-9-]+\.)*xn--[a-z0-9-]+\.com$/, hostname);
  }
  for (const [hostname, ascii] of [
    ['가게.한국', 'xn--o39akk.xn--3e0b707e'],
    ['상점.com', 'xn--hg4bs7k.com'],
    ['shop가게.com', 'xn--shop-eh3pi0a.com'],
    ['xn--o39akk.xn--3e0b707e', 'xn--o39akk.xn--3e0b707e'],
  ]) {
    if (hostname.startsWith('xn--')) {
      fails(await api('POST', '/v1/storefront/site/domains', { body: { hostname } }), 409, 'STOREFRONT_DOMAIN_EXISTS');
      continue;
    }
    const added = ok(await api('POST', '/v1/storefront/site/domains', { body: { hostname } }), 201);
    assert.equal([added.hostname, added.dnsRecords[1].name], [ascii, ascii], hostname);
  }
  for (const domain of (await list()).contents) if (domain.kind === 'CUSTOM') ok(await api('DELETE', `/v1/storefront/site/domains/${domain.domainId}`));
});

test('PENDING_DNS → PENDING_VALIDATION → ACTIVE: held by the store, primary, served by Host, allowed as a payment domain', async () => {
  const listed = await list();
  assert.equal([listed.enabled, listed.limit, listed.contents.length], [true, 5, 1]);
  const platform = listed.contents[0];
  assert.equal([platform.kind, platform.status, platform.primary], ['PLATFORM', 'ACTIVE', true]);

  // svc dev answers loopback names only (its DNS-rebinding guard), so the domain served by Host here is a .localhost one.
  const added = ok(await api('POST', '/v1/storefront/site/domains', { body: { hostname: 'shop.example.localhost' } }), 201);
  assert.equal([added.kind, added.status, added.failureCode, added.primary, added.target], ['CUSTOM', 'PENDING_DNS', null, false, TARGET]);
  assert.match(added.dnsRecords[0].value, /^svc-verify=/);
  assert.equal(added.dnsRecords[1], { type: 'CNAME', name: 'shop.example.localhost', value: TARGET });

  await svc.advance(10 * MINUTE);
  assert.is((await domainOf('shop.example.localhost')).status, 'PENDING_DNS', 'no TXT record yet');
  // Another store may add a domain nobody proved yet.
  const other = await newSellerWithStore(svc, 'sf-dom');
  await createSite(other.api, { templateId: 'basic', slug: 'dom-other' });
  const rival = ok(await other.api('POST', '/v1/storefront/site/domains', { body: { hostname: 'shop.example.localhost' } }), 201);

  configure(added, ['TXT']);
  await svc.advance(6 * MINUTE);
  assert.is((await domainOf('shop.example.localhost')).status, 'PENDING_VALIDATION');
  const rivalNow = ok(await other.api('GET', '/v1/storefront/site/domains')).contents.find((d: any) => d.domainId === rival.domainId);
  assert.is(rivalNow.status, 'PENDING_DNS', "the other store's TXT value differs: it stays pending");
  ok(await other.api('DELETE', `/v1/storefront/site/domains/${rival.domainId}`));
  fails(await other.api('POST', '/v1/storefront/site/domains', { body: { hostname: 'shop.example.localhost' } }), 409, 'STOREFRONT_DOMAIN_TAKEN');
  fails(await api('POST', `/v1/storefront/site/domains/${added.domainId}/primary`), 409, 'STOREFRONT_DOMAIN_NOT_ACTIVE');

  configure(added, ['CNAME']);
  await svc.advance(6 * MINUTE);
  const active = await domainOf('shop.example.localhost');
  assert.equal([active.status, active.failureCode, active.primary], ['ACTIVE', null, true]);
  assert.ok(active.activatedAt);
  assert.is((await list()).contents[0].primary, false, 'the default address is no longer primary');
  assert.is(ok(await api('GET', '/v1/storefront/site')).url, 'https://shop.example.localhost/');
  const page = await visitHost('shop.example.localhost');
  assert.is(page.status, 200);
  assert.match(page.body, '곧 문을 엽니다');
  assert.is((await visitHost('unknown.example.localhost')).status, 404);
  // Public, the domain serves the site's files as well as its pages.
  await createProduct(api, { name: '도메인 머그컵' });
  await synced(api);
  ok(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } }));
  const home = await visitHost('shop.example.localhost');
  clientScript = `/${/src="[^"]*?(assets\/client-[A-Z0-9]+\.js)"/.exec(home.body)?.[1]}`;
  const file = await visitHost('shop.example.localhost', clientScript);
  assert.is(file.status, 200, `${clientScript} on the domain`);
  assert.match(file.body, 'localStorage');
  // A connected domain is an allowed analytics origin (and payment-return origin) without being listed.
  ok(await api('PATCH', '/v1/store', { body: { storefrontOrigins: ['https://www.example.com'] } }));
  const sendFrom = (origin: string) =>
    apiClient(svc.url, { storeId: svc.storeId })('POST', '/storefront/v1/events', {
      body: { events: [{ name: 'page', at: new Date(svc.services.clock.now()).toISOString(), path: '/' }] },
      headers: { origin, 'x-svc-visitor': 'visitor-dom', 'x-svc-session': 'session-dom', 'user-agent': 'Mozilla/5.0 Chrome/120' },
    });
  assert.is((await sendFrom('https://shop.example.localhost')).status, 204);
  fails(await sendFrom('https://evil.example.test'), 403, 'ORIGIN_NOT_ALLOWED');

  // Primary back to the default address, then to the domain again.
  const back = ok(await api('POST', '/v1/storefront/site/domains/dom_platform/primary'));
  assert.equal(
    back.contents.map((d: any) => d.primary),
    [true, false],
  );
  assert.is(ok(await api('GET', '/v1/storefront/site')).url, siteUrlOf(svc, 'dev-store'));
  ok(await api('POST', `/v1/storefront/site/domains/${active.domainId}/primary`));
  fails(await api('DELETE', '/v1/storefront/site/domains/dom_platform'), 400, 'STOREFRONT_DOMAIN_NOT_REMOVABLE');
  fails(await api('DELETE', '/v1/storefront/site/domains/dom_nope'), 404, 'STOREFRONT_DOMAIN_NOT_FOUND');
  fails(await other.api('POST', `/v1/storefront/site/domains/${active.domainId}/verify`), 404, 'STOREFRONT_DOMAIN_NOT_FOUND');
});

test('DNS moved away: DNS_NOT_POINTING (not primary, not served), back when fixed, released after over 7 days', async () => {
  dns.set('shop.example.localhost', { CNAME: 'elsewhere.example.net' });
  await svc.advance(HOUR + MINUTE);
  let domain = await domainOf('shop.example.localhost');
  assert.equal([domain.status, domain.failureCode, domain.primary], ['ACTIVE', 'DNS_NOT_POINTING', false]);
  assert.is((await list()).contents[0].primary, true, 'the default address is primary again');
  assert.is((await visitHost('shop.example.localhost')).status, 404);
  assert.is((await visitHost('shop.example.localhost', clientScript)).status, 404, 'nor its files');
  fails(await api('POST', `/v1/storefront/site/domains/${domain.domainId}/primary`), 409, 'STOREFRONT_DOMAIN_NOT_ACTIVE');

  dns.set('shop.example.localhost', { CNAME: TARGET });
  await svc.advance(6 * MINUTE);
  domain = await domainOf('shop.example.localhost');
  assert.equal([domain.status, domain.failureCode], ['ACTIVE', null]);
  assert.is((await visitHost('shop.example.localhost')).status, 200);
  assert.is((await visitHost('shop.example.localhost', clientScript)).status, 200);

  dns.set('shop.example.localhost', { CNAME: 'elsewhere.example.net' });
  await svc.advance(HOUR + MINUTE);
  for (let day = 0; day < 8; day++) await svc.advance(DAY);
  domain = await domainOf('shop.example.localhost');
  assert.equal([domain.status, domain.failureCode], ['FAILED', 'DNS_NOT_POINTING']);
  const another = await newSellerWithStore(svc, 'sf-dom2');
  await createSite(another.api, { templateId: 'basic', slug: 'dom-another' });
  ok(await another.api('POST', '/v1/storefront/site/domains', { body: { hostname: 'shop.example.localhost' } }), 201);
  ok(await api('DELETE', `/v1/storefront/site/domains/${domain.domainId}`));
});

test('svc storefront domains: add prints the records; list follows PENDING_DNS → PENDING_VALIDATION → ACTIVE; primary; remove', async () => {
  const cli = (args: string[]) => ownerCliRun(['storefront', ...args]);
  const added = await cli(['domains', 'add', 'cli.example.test']);
  assert.is(added.exitCode, 0, added.stderr);
  assert.match(added.stdout, 'Added cli.example.test');
  assert.match(added.stdout, '_svc-verify.cli.example.test');
  assert.match(added.stdout, TARGET);
  const listed = async () => JSON.parse((await cli(['domains', 'list', '--json'])).stdout).contents.find((d: any) => d.hostname === 'cli.example.test');
  const domain = await listed();
  assert.is(domain.status, 'PENDING_DNS');
  configure(domain, ['TXT']);
  assert.is(ok(await api('POST', `/v1/storefront/site/domains/${domain.domainId}/verify`)).status, 'PENDING_VALIDATION');
  configure(domain, ['CNAME']);
  const verified = await cli(['domains', 'verify', 'cli.example.test']);
  assert.match(verified.stdout, 'cli.example.test: ACTIVE');
  const human = await cli(['domains', 'list']);
  assert.match(human.stdout, /cli\.example\.test\s+CUSTOM\s+ACTIVE/);
  assert.is((await cli(['domains', 'primary', 'platform'])).exitCode, 0);
  const removed = await cli(['domains', 'remove', 'cli.example.test', '--json']);
  assert.not.ok(JSON.parse(removed.stdout).contents.some((d: any) => d.hostname === 'cli.example.test'));
  const missing = await cli(['domains', 'remove', 'cli.example.test']);
  assert.is(missing.exitCode, 1);
});

test('failures: DNS_NOT_CONFIGURED after 7 days (verify restarts), CERTIFICATE_FAILED by CAA, VALIDATION_TIMEOUT; the limit', async () => {
  const never = ok(await api('POST', '/v1/storefront/site/domains', { body: { hostname: 'never.example.test' } }), 201);
  const caa = ok(await api('POST', '/v1/storefront/site/domains', { body: { hostname: 'caa.example.test' } }), 201);
  const slow = ok(await api('POST', '/v1/storefront/site/domains', { body: { hostname: 'slow.example.test' } }), 201);
  configure(caa);
  dns.set('caa.example.test', { CAA: [{ tag: 'issue', value: 'letsencrypt.org' }] });
  configure(slow, ['TXT']);
  await svc.advance(6 * MINUTE);
  assert.is((await domainOf('caa.example.test')).failureCode, 'CERTIFICATE_FAILED');
  assert.is((await domainOf('caa.example.test')).status, 'FAILED');
  assert.is((await domainOf('slow.example.test')).status, 'PENDING_VALIDATION');
  for (let day = 0; day < 8; day++) await svc.advance(DAY);
  assert.equal([(await domainOf('never.example.test')).status, (await domainOf('never.example.test')).failureCode], ['FAILED', 'DNS_NOT_CONFIGURED']);
  assert.equal([(await domainOf('slow.example.test')).status, (await domainOf('slow.example.test')).failureCode], ['FAILED', 'VALIDATION_TIMEOUT']);

  // verify restarts a failed domain and looks at once: this time the records are there.
  configure(never);
  const restarted = ok(await api('POST', `/v1/storefront/site/domains/${never.domainId}/verify`));
  assert.equal([restarted.status, restarted.failureCode], ['ACTIVE', null]);

  ok(await api('POST', '/v1/storefront/site/domains', { body: { hostname: 'four.example.test' } }), 201);
  ok(await api('POST', '/v1/storefront/site/domains', { body: { hostname: 'five.example.test' } }), 201);
  const limit = fails(await api('POST', '/v1/storefront/site/domains', { body: { hostname: 'six.example.test' } }), 409, 'STOREFRONT_DOMAIN_LIMIT');
  assert.is(limit.error.details.limit, 5);
});

test('custom domains closed by the setting', async () => {
  const closed = await startTestService({ storefront: { customDomainsOpen: false } as never });
  try {
    fails(await closed.api('POST', '/v1/storefront/site/domains', { body: { hostname: 'shop.example.test' } }), 403, 'STOREFRONT_CUSTOM_DOMAINS_DISABLED');
  } finally {
    await closed.close();
  }
});

test.run();
