/**
 * A published site's pages take request bodies of at most 1 MiB: a bigger chunked POST is counted while it
 * streams and refused with 413 at the limit (outside security run), and the service goes on answering.
 */
import { request as httpRequest } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ok } from '../helpers/assert.js';
import { startTestService, type Api, type TestService } from '../helpers/service.js';
import { connectSandbox, createProduct } from '../helpers/checkout.js';
import { longLivedApi } from '../helpers/members.js';
import { createSite, synced } from '../helpers/site-builds.js';

let svc: TestService;
let api: Api;
let siteUrl: URL;
test.before(async () => {
  svc = await startTestService();
  await connectSandbox(svc.api);
  api = await longLivedApi(svc);
  await createProduct(api, { name: '본문 한도 머그컵', salePrice: 9000 });
  siteUrl = new URL((await createSite(api)).site.url);
  await synced(api);
  ok(await api('PUT', '/v1/storefront/site/visibility', { body: { visibility: 'PUBLIC', expectedVisibility: 'COMING_SOON' } }));
});
test.after(async () => {
  await svc.close();
});

/**
 * A request to the site's page on the service's socket, by the site's own address (its host decides which
 * site), with a chunked body of `chunks` × 64 KiB that stops being sent once the answer has come.
 */
function visit(method: string, chunks = 0) {
  const { port } = new URL(svc.url);
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string; sentBytes: number }>((resolve, reject) => {
    let sentBytes = 0;
    let answered = false;
    const headers: Record<string, string> = { host: siteUrl.host, 'content-type': 'application/x-www-form-urlencoded' };
    if (chunks > 0) headers['transfer-encoding'] = 'chunked';
    const req = httpRequest({ host: '127.0.0.1', port, method, path: siteUrl.pathname, headers, agent: false }, (res) => {
      answered = true;
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, sentBytes }));
    });
    // The service may close the connection on the rest of a refused body: that is the point, not an error.
    req.on('error', (error) => (answered ? undefined : reject(error)));
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let left = chunks;
    const pump = () => {
      while (left > 0 && !answered && !req.destroyed) {
        left--;
        sentBytes += chunk.byteLength;
        if (!req.write(chunk)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

test('a chunked POST past 1 MiB to a published page is refused with 413 at the limit; the service keeps answering', async () => {
  const page = await visit('GET');
  assert.is(page.status, 200);
  assert.match(page.body, '본문 한도 머그컵');

  const small = await visit('POST', 2);
  assert.is(small.status, 404, 'a body under the limit reaches the server code (the template has no POST of its home page)');

  // 150 MB offered; the service answers after about 1 MiB and drops the rest of the connection's body.
  const big = await visit('POST', 2400);
  assert.is(big.status, 413);
  assert.match(String(big.headers['content-type']), 'text/html');
  assert.match(big.body, '요청이 너무 큽니다');
  assert.is(big.headers.connection, 'close');
  assert.ok(big.sentBytes < 2400 * 64 * 1024, `the answer came before the whole body was sent (${big.sentBytes} bytes sent)`);

  const refusedAll = await Promise.all([1, 2, 3].map(() => visit('POST', 2400)));
  assert.equal(
    refusedAll.map((r) => r.status),
    [413, 413, 413],
  );
  const after = await visit('GET');
  assert.is(after.status, 200, 'the service still answers');
  assert.match(after.body, '본문 한도 머그컵');
});

test.run();
