/**
 * The storefront developer's path with the compiled CLI (`node bin/run.js storefront …`, the oclif plugin
 * in plugins/storefront) against an in-process service: init → dev with live reload → deploy --publish →
 * versions, status, rollback, publish; a failing build exits 1 with its report.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execa, type ResultPromise } from 'execa';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProduct, connectSandbox } from '../checkout/support.js';
import { apiClient, startTestService, type TestService } from '../helpers/service.js';
import { siteUrlOf } from '../helpers/sites.js';
import { longLivedToken } from '../promotions/support.js';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'run.js');
let svc: TestService;
let work: string;
let token: string;

test.before(async () => {
  svc = await startTestService();
  work = mkdtempSync(join(tmpdir(), 'svc-storefront-cli-'));
  token = await longLivedToken(svc);
  await connectSandbox(svc.api);
  await createProduct(apiClient(svc.url, { token, storeId: svc.storeId }), { name: '라이브 리로드 머그', salePrice: 9000 });
});
test.after(async () => {
  await svc.close();
  rmSync(work, { recursive: true, force: true });
});

const env = () => ({ SVC_API_URL: svc.url, SVC_TOKEN: token, SVC_STORE_ID: svc.storeId, SVC_CONFIG_DIR: join(work, '.config'), CI: '1', NO_COLOR: '1' });
const svcCli = (args: string[], cwd = join(work, 'shop')) => execa('node', [bin, ...args], { cwd, env: env(), reject: false });
const json = (r: { stdout: unknown; stderr: unknown; exitCode?: number }) => {
  try {
    return JSON.parse(String(r.stdout));
  } catch {
    throw new Error(`not JSON (exit ${r.exitCode}): ${r.stdout}\n${r.stderr}`);
  }
};

test('init copies the template; dev serves it against the buyer API and reloads open pages on a save', async () => {
  const init = await svcCli(['storefront', 'init', 'shop'], work);
  assert.is(init.exitCode, 0, String(init.stderr));
  assert.ok(existsSync(join(work, 'shop', 'svc.storefront.json')) && existsSync(join(work, 'shop', 'pnpm-lock.yaml')));
  assert.is((await svcCli(['storefront', 'init', 'shop'], work)).exitCode, 2, 'an existing folder is a usage error');

  const dev = execa('node', [bin, 'storefront', 'dev', '--port', '0', '--json'], { cwd: join(work, 'shop'), env: env(), reject: false }) as ResultPromise;
  try {
    const ready = await new Promise<{ url: string }>((ok, ko) => {
      let out = '';
      dev.stdout!.on('data', (chunk: Buffer) => {
        out += chunk;
        try {
          ok(JSON.parse(out));
        } catch {
          // more to come
        }
      });
      void dev.then((r) => ko(new Error(`svc storefront dev ended: ${out}\n${r.stderr}`)));
    });
    const home = await (await fetch(ready.url)).text();
    assert.match(home, '라이브 리로드 머그', 'the page lists the store\'s products through the buyer API');
    assert.match(home, '/_svc/livereload');

    const events = await fetch(`${ready.url}_svc/livereload`);
    const reader = events.body!.getReader();
    await reader.read();
    const layout = join(work, 'shop', 'src', 'pages', 'layout.ts');
    writeFileSync(layout, readFileSync(layout, 'utf8').replace('</body>', '<p id="edited">편집됨</p></body>'));
    const message = new TextDecoder().decode((await reader.read()).value);
    assert.match(message, 'reload');
    await reader.cancel();
    assert.match(await (await fetch(ready.url)).text(), '<p id="edited">편집됨</p>');
  } finally {
    dev.kill('SIGTERM');
    await dev;
  }
});

test('deploy --publish creates the site, builds and publishes; versions, status, rollback and publish', async () => {
  const deployed = await svcCli(['storefront', 'deploy', '--publish', '--json']);
  assert.is(deployed.exitCode, 0, String(deployed.stderr));
  const result = json(deployed);
  assert.equal([result.published, result.build.status, result.site.slug], [true, 'SUCCEEDED', 'dev-store']);
  assert.is(result.site.publishedVersionId, result.build.versionId);

  const versions = json(await svcCli(['storefront', 'versions', '--json'])).contents;
  assert.equal(versions.map((v: any) => [v.number, v.published]), [['v2', true], ['v1', false]]);
  const status = json(await svcCli(['storefront', 'status', '--json']));
  assert.equal([status.deployment.status, status.provisioning.status], ['SUCCEEDED', 'SYNCED']);
  const human = await svcCli(['storefront', 'status']);
  assert.match(String(human.stdout), siteUrlOf(svc, 'dev-store'));

  const back = await svcCli(['storefront', 'rollback', '--json']);
  assert.is(back.exitCode, 0, String(back.stderr));
  assert.is(json(back).publishedVersionId, versions[1].versionId);
  const again = await svcCli(['storefront', 'publish', 'v2', '--json']);
  assert.is(json(again).publishedVersionId, versions[0].versionId);
});

test('a failing build exits 1 with the stage, code and log', async () => {
  writeFileSync(join(work, 'shop', 'src', 'server.ts'), "import { readFileSync } from 'node:fs';\nexport default { fetch: () => new Response(String(readFileSync)) };\n");
  const failed = await svcCli(['storefront', 'deploy']);
  assert.is(failed.exitCode, 1, String(failed.stdout));
  assert.match(String(failed.stderr), 'BUILD_FAILED');
  assert.match(String(failed.stderr), 'node:fs');
  const outsideProject = await svcCli(['storefront', 'deploy'], work);
  assert.is(outsideProject.exitCode, 2);
  assert.match(String(outsideProject.stderr), 'svc.storefront.json');
});

test.run();
