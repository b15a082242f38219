/**
 * The Korean webfont's stylesheet at /_svc/fonts/noto-sans-kr/index.css (src/server/fonts.ts): every file it
 * names answers 200 with a font, the Hangul ranges and the latin, latin-ext, cyrillic and vietnamese ones
 * alike; other files of the package stay 404.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
test.before(async () => {
  svc = await startTestService();
});
test.after(async () => {
  await svc.close();
});

const BASE = '/_svc/fonts/noto-sans-kr/';

test('every url in the font stylesheet answers 200 with a woff2 file', async () => {
  const sheet = await fetch(`${svc.url}${BASE}index.css`);
  assert.equal([sheet.status, sheet.headers.get('content-type')], [200, 'text/css; charset=utf-8']);
  const urls = [...(await sheet.text()).matchAll(/url\(\s*['"]?([^'")\s]+)['"]?\s*\)/g)].map((m) => m[1]!);
  assert.ok(urls.length > 10, `stylesheet names ${urls.length} files`);
  for (const name of ['latin', 'latin-ext', 'cyrillic', 'vietnamese']) assert.ok(urls.includes(`./files/noto-sans-kr-${name}-wght-normal.woff2`), name);
  const failures: string[] = [];
  for (const url of urls) {
    const res = await fetch(new URL(url, `${svc.url}${BASE}index.css`));
    const body = await res.arrayBuffer();
    if (res.status !== 200 || res.headers.get('content-type') !== 'font/woff2' || body.byteLength < 100) failures.push(`${url}: ${res.status}`);
  }
  assert.equal(failures, []);
});

test('other files of the font package are not served', async () => {
  for (const path of ['package.json', '../../package.json', 'files/../package.json', 'LICENSE', 'files/noto-sans-kr-latin-wght-normal.woff']) {
    assert.is((await fetch(`${svc.url}${BASE}${path}`)).status, 404, path);
  }
});

test.run();
