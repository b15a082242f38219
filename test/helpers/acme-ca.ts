import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as x509 from '@peculiar/x509';
import { calculateJwkThumbprint, flattenedVerify, importJWK, type JWK } from 'jose';

/*
 * An ACME authority on loopback (RFC 8555: directory, nonces, accounts, orders, http-01, finalize,
 * certificate chain), as Let's Encrypt's Pebble is for Go: no ACME server ships on the npm registry. Every
 * request's JWS is verified, http-01 is validated by fetching the key authorization from the service over
 * HTTP with the domain as Host (a real authority resolves the name; here it connects to `validationAddress`),
 * and certificates are real X.509 signed by this authority's own root.
 */

x509.cryptoProvider.set(globalThis.crypto);
const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;
export const CA_NAME = 'svc test ACME authority';
const SUBJECT_ALT_NAME = '2.5.29.17';

type Challenge = { type: 'http-01'; url: string; token: string; status: 'pending' | 'valid' | 'invalid'; error?: unknown };
type Authz = { url: string; host: string; status: 'pending' | 'valid' | 'invalid'; challenge: Challenge; account: string };
type Order = { url: string; status: 'pending' | 'ready' | 'valid' | 'invalid'; hosts: string[]; authzs: Authz[]; certificate?: string; account: string };

class Problem extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    detail: string,
  ) {
    super(detail);
  }
}

export async function startAcmeAuthority(options: { validationAddress: () => { host: string; port: number } }) {
  const keys = await crypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const now = Date.now();
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${CA_NAME}`,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 3650 * DAY),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  const nonces = new Set<string>();
  const accounts = new Map<string, JWK>();
  const orders = new Map<string, Order>();
  const authzs = new Map<string, Authz>();
  const challenges = new Map<string, Authz>();
  const certificates = new Map<string, string>();
  /** Hosts this authority refuses to validate (as a CAA record naming another authority would make it). */
  const refused = new Set<string>();
  const validations: { host: string; ok: boolean }[] = [];
  let base = '';
  let serial = 2;

  async function issue(hosts: string[], publicKey: x509.PublicKey, validForMs = 90 * DAY) {
    const issuedAt = Date.now();
    const leaf = await x509.X509CertificateGenerator.create({
      serialNumber: (serial++).toString(16).padStart(2, '0'),
      subject: `CN=${hosts[0]}`,
      issuer: root.subject,
      notBefore: new Date(issuedAt - 60_000),
      notAfter: new Date(issuedAt + validForMs),
      signingKey: keys.privateKey,
      publicKey,
      signingAlgorithm: ALG,
      extensions: [
        new x509.SubjectAlternativeNameExtension(hosts.map((value) => ({ type: /^[\d.]+$/.test(value) ? ('ip' as const) : ('dns' as const), value }))),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      ],
    });
    return `${leaf.toString('pem')}\n${root.toString('pem')}\n`;
  }

  const fetchKeyAuthorization = (host: string, token: string) =>
    new Promise<string>((resolve, reject) => {
      const { host: address, port } = options.validationAddress();
      const req = request({ host: address, port, path: `/.well-known/acme-challenge/${token}`, headers: { host } }, (res) => {
        let body = '';
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => (res.statusCode === 200 ? resolve(body.trim()) : reject(new Error(`HTTP ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end();
    });

  async function validate(authz: Authz) {
    const challenge = authz.challenge;
    try {
      if (refused.has(authz.host)) throw new Problem(403, 'caa', `CAA record for ${authz.host} prevents issuance`);
      const expected = `${challenge.token}.${await calculateJwkThumbprint(accounts.get(authz.account)!)}`;
      const answered = await fetchKeyAuthorization(authz.host, challenge.token);
      if (answered !== expected) throw new Problem(403, 'unauthorized', `key authorization mismatch: ${answered}`);
      challenge.status = authz.status = 'valid';
    } catch (error) {
      challenge.status = authz.status = 'invalid';
      challenge.error = { type: `urn:ietf:params:acme:error:${error instanceof Problem ? error.type : 'connection'}`, detail: (error as Error).message };
    }
    validations.push({ host: authz.host, ok: challenge.status === 'valid' });
    for (const order of orders.values()) {
      if (order.status !== 'pending' || !order.authzs.includes(authz)) continue;
      if (order.authzs.some((a) => a.status === 'invalid')) order.status = 'invalid';
      else if (order.authzs.every((a) => a.status === 'valid')) order.status = 'ready';
    }
  }

  const orderBody = (o: Order) => ({
    status: o.status,
    identifiers: o.hosts.map((value) => ({ type: 'dns', value })),
    authorizations: o.authzs.map((a) => a.url),
    finalize: `${o.url}/finalize`,
    expires: new Date(Date.now() + DAY).toISOString(),
    ...(o.certificate ? { certificate: o.certificate } : {}),
  });
  const authzBody = (a: Authz) => ({
    status: a.status,
    identifier: { type: 'dns', value: a.host },
    challenges: [a.challenge],
    expires: new Date(Date.now() + DAY).toISOString(),
  });

  /** Verifies a request's JWS (nonce, url, key or account) and returns its payload and account. */
  async function verified(body: string, url: string) {
    const jws = JSON.parse(body) as { protected: string; payload: string; signature: string };
    const header = JSON.parse(Buffer.from(jws.protected, 'base64url').toString()) as { alg: string; nonce: string; url: string; jwk?: JWK; kid?: string };
    if (!nonces.delete(header.nonce)) throw new Problem(400, 'badNonce', 'unknown nonce');
    if (header.url !== url) throw new Problem(401, 'unauthorized', `JWS url ${header.url} is not ${url}`);
    const jwk = header.jwk ?? accounts.get(header.kid ?? '');
    if (!jwk) throw new Problem(400, 'accountDoesNotExist', 'no such account');
    const { payload } = await flattenedVerify(jws, await importJWK(jwk, header.alg));
    const text = Buffer.from(payload).toString();
    return { payload: text ? JSON.parse(text) : null, jwk, account: header.kid ?? '' };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0];
    const nonce = randomBytes(16).toString('base64url');
    nonces.add(nonce);
    res.setHeader('replay-nonce', nonce);
    res.setHeader('cache-control', 'no-store');
    const json = (status: number, body: unknown, location?: string) => {
      res.writeHead(status, { 'content-type': 'application/json', ...(location ? { location } : {}) }).end(JSON.stringify(body));
    };
    if (path === '/directory')
      return json(200, {
        newNonce: `${base}/nonce`,
        newAccount: `${base}/account`,
        newOrder: `${base}/order`,
        revokeCert: `${base}/revoke`,
        keyChange: `${base}/key-change`,
      });
    if (path === '/nonce') return res.writeHead(req.method === 'HEAD' ? 200 : 204).end();
    let body = '';
    for await (const chunk of req) body += chunk;
    const { payload, jwk, account } = await verified(body, `${base}${path}`);
    if (path === '/account') {
      const id = `${base}/acct/${await calculateJwkThumbprint(jwk)}`;
      const existed = accounts.has(id);
      accounts.set(id, jwk);
      return json(existed ? 200 : 201, { status: 'valid', contact: payload?.contact ?? [] }, id);
    }
    if (path === '/order') {
      const id = randomUUID();
      const url = `${base}/orders/${id}`;
      const order: Order = { url, status: 'pending', hosts: payload.identifiers.map((i: { value: string }) => i.value), authzs: [], account };
      for (const host of order.hosts) {
        const authzId = randomUUID();
        const authz: Authz = {
          url: `${base}/authz/${authzId}`,
          host,
          status: 'pending',
          account,
          challenge: { type: 'http-01', url: `${base}/chall/${authzId}`, token: randomBytes(24).toString('base64url'), status: 'pending' },
        };
        authzs.set(authz.url, authz);
        challenges.set(authz.challenge.url, authz);
        order.authzs.push(authz);
      }
      orders.set(url, order);
      return json(201, orderBody(order), url);
    }
    const url = `${base}${path}`;
    if (accounts.has(url)) return json(200, { status: 'valid' });
    if (authzs.has(url)) return json(200, authzBody(authzs.get(url)!));
    if (challenges.has(url)) {
      const authz = challenges.get(url)!;
      if (payload !== null && authz.challenge.status === 'pending') await validate(authz);
      return json(200, authz.challenge, undefined);
    }
    if (url.endsWith('/finalize') && orders.has(url.slice(0, -'/finalize'.length))) {
      const order = orders.get(url.slice(0, -'/finalize'.length))!;
      if (order.status !== 'ready') throw new Problem(403, 'orderNotReady', `order is ${order.status}`);
      const csr = new x509.Pkcs10CertificateRequest(Buffer.from(payload.csr, 'base64url'));
      if (!(await csr.verify())) throw new Problem(400, 'badCSR', 'CSR signature does not verify');
      const san = csr.extensions.find((e) => e.type === SUBJECT_ALT_NAME) as x509.SubjectAlternativeNameExtension | undefined;
      const names = san?.names.items.map((n) => n.value) ?? [];
      if (names.sort().join() !== [...order.hosts].sort().join()) throw new Problem(400, 'badCSR', `CSR names ${names} are not the order's`);
      const certificateUrl = `${base}/cert/${randomUUID()}`;
      certificates.set(certificateUrl, await issue(order.hosts, csr.publicKey));
      order.status = 'valid';
      order.certificate = certificateUrl;
      return json(200, orderBody(order), order.url);
    }
    if (orders.has(url)) return json(200, orderBody(orders.get(url)!));
    if (certificates.has(url)) return res.writeHead(200, { 'content-type': 'application/pem-certificate-chain' }).end(certificates.get(url));
    throw new Problem(404, 'malformed', `no resource at ${path}`);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      const problem = error instanceof Problem ? error : new Problem(400, 'malformed', (error as Error).message);
      res
        .writeHead(problem.status, { 'content-type': 'application/problem+json' })
        .end(JSON.stringify({ type: `urn:ietf:params:acme:error:${problem.type}`, detail: problem.message }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    directoryUrl: `${base}/directory`,
    /** The root certificate (PEM) a client trusts to verify what this authority issued. */
    rootPem: root.toString('pem'),
    validations,
    refused,
    /** A certificate and key for names of the test's own (the service's own TLS certificate). */
    async certificateFor(hosts: string[]) {
      const pair = await crypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
      const chain = await issue(hosts, await x509.PublicKey.create(pair.publicKey as CryptoKey), 30 * DAY);
      const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', pair.privateKey as CryptoKey)).toString('base64');
      return { chain, key: `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n` };
    },
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
