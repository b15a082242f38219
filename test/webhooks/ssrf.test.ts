import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkWebhookUrl, isBlockedAddress, type Resolver } from '../../src/kernel/network-address.js';
import { sendOnce } from '../../src/modules/webhooks/send.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const BLOCKED = [
  '0.0.0.0',
  '0.1.2.3', // this network
  '10.0.0.1',
  '10.255.255.255',
  '172.16.0.1',
  '172.31.255.254',
  '192.168.1.1', // private
  '100.64.0.1',
  '100.127.255.254', // CGNAT
  '127.0.0.1',
  '127.255.0.9', // loopback
  '169.254.169.254',
  '169.254.0.1', // link-local, cloud metadata
  '192.0.0.8',
  '192.0.2.10',
  '198.51.100.7',
  '203.0.113.200', // IETF, documentation
  '192.88.99.1',
  '198.18.0.1',
  '198.19.255.255', // 6to4 relay, benchmarking
  '224.0.0.1',
  '239.255.255.250', // multicast
  '240.0.0.1',
  '255.255.255.255', // reserved, broadcast
  '::',
  '::1', // unspecified, loopback
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:10.0.0.1',
  '::ffff:169.254.169.254',
  '0:0:0:0:0:ffff:7f00:1', // IPv4-mapped
  '::ffff:0:127.0.0.1',
  '::ffff:0:7f00:1',
  '::ffff:0:a9fe:a9fe',
  '0:0:0:0:ffff:0:a00:1', // IPv4-translated (SIIT)
  '::127.0.0.1',
  '::8.8.8.8', // IPv4-compatible (deprecated, all of it)
  '64:ff9b::a00:1',
  '64:ff9b::127.0.0.1',
  '64:ff9b:1::1',
  '64:ff9b:1::808:808', // NAT64, local-use NAT64
  '100::1', // discard
  '2001::1',
  '2001:2::1',
  '2001:db8::1',
  '3fff::1', // Teredo/benchmarking, documentation
  '2001:0:a00:1:8000:63bf:f7f7:f7f7', // Teredo whose server is 10.0.0.1
  '2001:0:4136:e378:8000:63bf:80ff:fffe', // Teredo whose (inverted) client is 127.0.0.1
  '2002:7f00:1::1',
  '2002:a9fe:a9fe::',
  '2002:c0a8:101::1', // 6to4 of loopback, metadata, private
  'fc00::1',
  'fd00:ec2::254', // unique local, AWS IPv6 metadata
  'fe80::1',
  'febf::1',
  'fec0::1', // link-local, site-local
  'ff02::1',
  'ff05::2', // multicast
  'not-an-ip',
];
const ALLOWED = [
  '8.8.8.8',
  '1.1.1.1',
  '172.32.0.1',
  '100.128.0.1',
  '169.255.0.1',
  '11.0.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001::1',
  // IPv6 forms carrying a public IPv4 address are judged by it (NAT64 is how IPv6-only hosts reach IPv4).
  '::ffff:8.8.8.8',
  '::ffff:0:8.8.8.8',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
  '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
];

test('every special-purpose range of spec 01 §6.5 is blocked, IPv4 and IPv6; public addresses are not', () => {
  for (const a of BLOCKED) assert.ok(isBlockedAddress(a), `${a} should be blocked`);
  for (const a of ALLOWED) assert.not.ok(isBlockedAddress(a), `${a} should be allowed`);
});

const stub =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const list = table[host];
    if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

test('registration check: every resolved address counts (mixed A/AAAA), unresolvable hosts pass, literals and the allow list', async () => {
  const resolve = stub({
    'public.example': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'mixed-a.example': ['93.184.215.14', '10.0.0.5'],
    'mixed-aaaa.example': ['93.184.215.14', 'fd12::1'],
    'metadata.example': ['169.254.169.254'],
    'mapped.example': ['::ffff:192.168.0.1'],
    'translated.example': ['::ffff:0:7f00:1'],
    'nat64.example': ['64:ff9b::a9fe:a9fe'],
  });
  const check = (url: string, allowHosts: string[] = []) => checkWebhookUrl(url, { allowHosts, resolve });
  assert.is(await check('https://public.example/hook'), null);
  assert.is(await check('https://mixed-a.example/hook'), 'BLOCKED_ADDRESS');
  assert.is(await check('https://mixed-aaaa.example/hook'), 'BLOCKED_ADDRESS');
  assert.is(await check('https://metadata.example/hook'), 'BLOCKED_ADDRESS');
  assert.is(await check('https://mapped.example/hook'), 'BLOCKED_ADDRESS');
  assert.is(await check('https://translated.example/hook'), 'BLOCKED_ADDRESS');
  assert.is(await check('https://nat64.example/hook'), 'BLOCKED_ADDRESS');
  assert.is(await check('https://[::ffff:0:127.0.0.1]/hook'), 'BLOCKED_ADDRESS');
  assert.is(await check('https://[2002:7f00:1::]/hook'), 'BLOCKED_ADDRESS');
  assert.is(await check('https://[64:ff9b::8.8.8.8]/hook'), null);
  assert.is(await check('https://unresolvable.example/hook'), null);
  assert.is(await check('https://[fe80::1]/hook'), 'BLOCKED_ADDRESS');
  assert.is(await check('https://[::ffff:127.0.0.1]/hook'), 'BLOCKED_ADDRESS');
  assert.is(await check('https://2130706433/hook'), 'BLOCKED_ADDRESS'); // 127.0.0.1 as one number
  assert.is(await check('https://0x7f.1/hook'), 'BLOCKED_ADDRESS');
  assert.is(await check('https://8.8.8.8/hook'), null);
  assert.is(await check('http://public.example/hook'), 'HTTPS_REQUIRED');
  assert.is(await check('https://a:b@public.example/hook'), 'USER_INFO_NOT_ALLOWED');
  // The dev flag exempts exact hosts only, from both the https and the address rule.
  assert.is(await check('http://127.0.0.1:9/hook', ['127.0.0.1']), null);
  assert.is(await check('http://metadata.example/hook', ['metadata.example']), null);
  assert.is(await check('http://127.0.0.2/hook', ['127.0.0.1']), 'HTTPS_REQUIRED');
  assert.is(await check('https://[::1]/hook', ['::1']), null);
});

const send = (url: string, options: { resolve?: Resolver; allowHosts?: string[]; deadlineMs?: number } = {}) =>
  sendOnce(
    url,
    '{"id":"evt_1"}',
    { 'content-type': 'application/json' },
    { allowHosts: options.allowHosts ?? [], resolve: options.resolve, poolKey: `t${Math.random()}`, deadlineMs: options.deadlineMs },
  );

test('send: a blocked address among the answers stops the send before any connection (SSRF_BLOCKED)', async () => {
  const receiver = await startReceiver();
  const resolve = stub({ 'hook.example': ['93.184.215.14', '127.0.0.1'] });
  const r = await send(`https://hook.example:${receiver.port}/hook`, { resolve });
  assert.is(r.failureReason, 'SSRF_BLOCKED');
  assert.is(r.errorCode, 'BLOCKED_ADDRESS');
  assert.is(receiver.received.length, 0);
  const literal = await send(`https://[::1]:${receiver.port}/hook`);
  assert.is(literal.failureReason, 'SSRF_BLOCKED');
  const plain = await send(`http://hook.example:${receiver.port}/hook`, { resolve });
  assert.is(plain.failureReason, 'SSRF_BLOCKED');
  await receiver.close();
});

test('send: DNS rebinding — a host that passed registration and now answers loopback is refused at send', async () => {
  const receiver = await startReceiver();
  let calls = 0;
  const rebinding: Resolver = async () => [{ address: calls++ === 0 ? '93.184.215.14' : '127.0.0.1', family: 4 }];
  assert.is(await checkWebhookUrl(`https://rebind.example:${receiver.port}/hook`, { allowHosts: [], resolve: rebinding }), null);
  const r = await send(`https://rebind.example:${receiver.port}/hook`, { resolve: rebinding });
  assert.is(r.failureReason, 'SSRF_BLOCKED');
  assert.is(receiver.received.length, 0);
  await receiver.close();
});

test('send: the connection goes to the address the check saw (pinned), not to a second lookup', async () => {
  const receiver = await startReceiver();
  // "pinned.test" exists only in this resolver; reaching the receiver proves the checked answer was used.
  const resolve = stub({ 'pinned.test': ['127.0.0.1'] });
  const r = await send(`http://pinned.test:${receiver.port}/hook`, { resolve, allowHosts: ['pinned.test'] });
  assert.is(r.statusCode, 200, JSON.stringify(r));
  assert.is(receiver.received[0].headers.host, `pinned.test:${receiver.port}`);
  await receiver.close();
});

test('send: failure reasons — redirect not followed, 4xx, timeout, DNS, refused connection, masked excerpt', async () => {
  const receiver = await startReceiver((r) => {
    const path = JSON.parse(r.body) && r.headers['x-case'];
    if (path === 'redirect') return { status: 302, headers: { location: 'http://127.0.0.1:1/elsewhere' } };
    if (path === 'hang') return null;
    if (path === 'long') return { status: 400, body: `{"client_secret":"s3cr3t","pad":"${'x'.repeat(10_000)}"}` };
    return { status: 404, body: 'password=hunter2&user=kim' };
  });
  const opts = { allowHosts: ['127.0.0.1'], poolKey: 'reasons' };
  const go = (header: string, deadlineMs?: number) => sendOnce(receiver.url, '{}', { 'x-case': header }, { ...opts, deadlineMs });
  const redirect = await go('redirect');
  assert.is(redirect.failureReason, 'HTTP_OTHER');
  assert.is(redirect.statusCode, 302);
  assert.is(receiver.received.length, 1);
  const notFound = await go('404');
  assert.is(notFound.failureReason, 'HTTP_4XX');
  assert.is(notFound.errorCode, 'NON_2XX');
  assert.is(notFound.bodyExcerpt, 'password=****&user=kim');
  const long = await go('long');
  assert.is(long.bodyExcerpt!.length, 4096);
  assert.ok(long.bodyExcerpt!.startsWith('{"client_secret":"****"'));
  const hang = await go('hang', 300);
  assert.is(hang.failureReason, 'TIMEOUT');
  assert.is(hang.errorCode, 'TIMEOUT');
  // The attempt waited out its deadline (TIMEOUT above says it was then cut off); how long after is not asserted.
  assert.ok(hang.timeMs >= 290, `recorded ${hang.timeMs} ms`);
  const dns = await send('https://nowhere.example/hook', { resolve: stub({}) });
  assert.is(dns.failureReason, 'DNS');
  assert.is(dns.errorCode, 'CONNECTION_FAILED');
  const slowDns: Resolver = () => new Promise(() => {});
  const dnsTimeout = await send('https://slow-dns.example/hook', { resolve: slowDns, deadlineMs: 200 });
  assert.is(dnsTimeout.failureReason, 'TIMEOUT');
  await receiver.close();
  const refused = await sendOnce(receiver.url, '{}', {}, { ...opts, poolKey: 'refused' });
  assert.is(refused.failureReason, 'CONNECTION');
  assert.is(refused.errorCode, 'CONNECTION_FAILED');
});

test.run();
