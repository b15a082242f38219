/**
 * Certificates of custom domains from an ACME authority (SVC_ACME_DIRECTORY), over real HTTP and TLS: the
 * http-01 challenge answered by the service, the issued certificate served by SNI on the HTTPS listener,
 * a refusal → CERTIFICATE_FAILED, renewal 30 days before expiry, and removal dropping the certificate.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CA_NAME, startAcmeAuthority } from '../helpers/acme-ca.js';
import { ok } from '../helpers/assert.js';
import { apiClient, createAccessToken, startTestService, type Api, type TestService } from '../helpers/service.js';
import { startDnsServer } from '../helpers/dns.js';
import { createSite } from '../helpers/site-builds.js';

let svc: TestService;
let api: Api;
let dns: Awaited<ReturnType<typeof startDnsServer>>;
let ca: Awaited<ReturnType<typeof startAcmeAuthority>>;
const DAY = 86_400;

test.before(async () => {
  dns = await startDnsServer();
  ca = await startAcmeAuthority({ validationAddress: () => ({ host: '127.0.0.1', port: Number(new URL(svc.url).port) }) });
  // The service's own certificate, for names that have none of their own.
  const own = await ca.certificateFor(['svc.localhost']);
  const dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
  writeFileSync(join(dir, 'cert.pem'), own.chain);
  writeFileSync(join(dir, 'key.pem'), own.key);
  svc = await startTestService({
    storefront: { dnsServers: dns.servers, acmeDirectory: ca.directoryUrl, acmeEmail: 'ops@example.com' } as never,
    tls: { port: 0, certFile: join(dir, 'cert.pem'), keyFile: join(dir, 'key.pem') },
  });
  // The clock moves by 61 days here: a 90-day token.
  const token = await createAccessToken(svc, svc.ownerToken, { scopes: ['storefront:rw'], expiresInDays: 90 });
  api = apiClient(svc.url, { token, storeId: svc.storeId });
  await createSite(api);
});
test.after(async () => {
  await svc.close();
  await dns.close();
  await ca.close();
});

/** The certificate the HTTPS listener presents for `servername`, its chain verified against the test authority's root (its names are the test's to check). */
const presented = (servername: string) =>
  new Promise<PeerCertificate>((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: svc.tlsPort!, servername, ca: ca.rootPem, checkServerIdentity: () => undefined }, () => {
      const certificate = socket.getPeerCertificate();
      socket.end();
      if (!socket.authorized) reject(new Error(`not trusted: ${socket.authorizationError}`));
      else resolve(certificate);
    });
    socket.on('error', reject);
  });

const httpsGet = (host: string, path = '/') =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: svc.tlsPort!, path, servername: host, ca: ca.rootPem, headers: { host } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });

async function connectDomain(hostname: string) {
  const added = ok(await api('POST', '/v1/storefront/site/domains', { body: { hostname } }), 201);
  for (const record of added.dnsRecords) dns.set(record.name, record.type === 'TXT' ? { TXT: [record.value] } : { CNAME: record.value });
  return ok(await api('POST', `/v1/storefront/site/domains/${added.domainId}/verify`));
}

test('ACME: the authority validates http-01 against the service, and the HTTPS listener serves the issued certificate by SNI', async () => {
  const domain = await connectDomain('shop.acme.localhost');
  assert.equal([domain.status, domain.failureCode, domain.primary], ['ACTIVE', null, true]);
  assert.equal(ca.validations, [{ host: 'shop.acme.localhost', ok: true }], 'the authority fetched the key authorization from the service');

  const certificate = await presented('shop.acme.localhost');
  assert.is(certificate.subjectaltname, 'DNS:shop.acme.localhost');
  assert.is(certificate.issuer.CN, CA_NAME);
  const page = await httpsGet('shop.acme.localhost');
  assert.is(page.status, 200);
  assert.match(page.body, '곧 문을 엽니다');
  // Other names get the service's own certificate.
  assert.is((await presented('svc.localhost')).subjectaltname, 'DNS:svc.localhost');
  // The challenge is gone once answered.
  assert.is((await httpsGet('shop.acme.localhost', '/.well-known/acme-challenge/unknown-token')).status, 404);
});

test('a certificate the authority refuses: CERTIFICATE_FAILED, nothing served for the name', async () => {
  ca.refused.add('refused.acme.localhost');
  const domain = await connectDomain('refused.acme.localhost');
  assert.equal([domain.status, domain.failureCode], ['FAILED', 'CERTIFICATE_FAILED']);
  assert.equal(ca.validations.at(-1), { host: 'refused.acme.localhost', ok: false });
  assert.is((await presented('refused.acme.localhost')).subjectaltname, 'DNS:svc.localhost');
});

test('renewal 30 days before expiry: a new certificate, served at once; removing the domain drops it', async () => {
  const before = await presented('shop.acme.localhost');
  await svc.advance(61 * DAY);
  const after = await presented('shop.acme.localhost');
  assert.is.not(after.serialNumber, before.serialNumber, 'a renewed certificate');
  assert.is(after.subjectaltname, 'DNS:shop.acme.localhost');
  assert.is(ca.validations.filter((v) => v.host === 'shop.acme.localhost' && v.ok).length, 2);

  const { contents } = ok(await api('GET', '/v1/storefront/site/domains'));
  const domain = contents.find((d: any) => d.hostname === 'shop.acme.localhost');
  ok(await api('DELETE', `/v1/storefront/site/domains/${domain.domainId}`));
  assert.is((await presented('shop.acme.localhost')).subjectaltname, 'DNS:svc.localhost');
});

test.run();
