import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

/** A raw GET (fetch would decompress by itself and hide what was sent). */
function get(path: string, headers: Record<string, string>): Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = request(`${svc.url}${path}`, { headers: { authorization: `Bearer ${svc.ownerToken}`, 'x-store-id': svc.storeId, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('cached product pages go out gzip-compressed to clients that accept it, identical once decompressed', async () => {
  const plain = await get('/v1/products?size=20', {});
  assert.is(plain.headers['content-encoding'], undefined);
  assert.is(plain.headers.vary, 'accept-encoding');
  const zipped = await get('/v1/products?size=20', { 'accept-encoding': 'gzip, deflate, br' });
  assert.is(zipped.headers['content-encoding'], 'gzip');
  assert.ok(zipped.body.length < plain.body.length);
  assert.equal(JSON.parse(gunzipSync(zipped.body).toString()), JSON.parse(plain.body.toString()));
  const refused = await get('/v1/products?size=20', { 'accept-encoding': 'gzip;q=0, identity' });
  assert.is(refused.headers['content-encoding'], undefined);
  assert.equal(JSON.parse(refused.body.toString()), JSON.parse(plain.body.toString()));
});

test('answers built per request are sent as they are', async () => {
  const members = await get('/v1/members', { 'accept-encoding': 'gzip' });
  assert.is(members.headers['content-encoding'], undefined);
  assert.is(JSON.parse(members.body.toString()).data.contents[0].role, 'OWNER');
});

test.run();
