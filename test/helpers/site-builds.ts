import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';
import { ok } from './assert.js';
import { apiClient, createAccessToken, type Api, type TestService } from './service.js';

/** Runs the job loop once now (deployment steps, builds, provisioning) instead of waiting for its tick. */
export const runJobs = async (api: Api) => ok(await api('POST', '/_dev/v1/jobs/run'));

/** Polls `check` (running the jobs between tries) until it returns a value, or fails after `ms`. */
export async function eventually<T>(api: Api, check: () => Promise<T | undefined | null | false>, what: string, ms = 60_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await runJobs(api);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A `.tar.gz` of a project, as `svc storefront deploy` uploads it. */
export async function tarGz(files: Record<string, string | Uint8Array>): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((ok) => tar.on('end', ok));
  for (const [name, content] of Object.entries(files))
    tar.entry({ name, type: 'file' }, typeof content === 'string' ? Buffer.from(content) : Buffer.from(content));
  tar.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

/** PUT /v1/storefront/site/files with the archive as multipart `file`. */
export async function uploadSource(svc: TestService, auth: { token: string; storeId: string }, archive: Uint8Array, headers: Record<string, string> = {}) {
  const form = new FormData();
  form.set('file', new Blob([archive as Uint8Array<ArrayBuffer>], { type: 'application/gzip' }), 'site.tar.gz');
  const res = await fetch(`${svc.url}/v1/storefront/site/files`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${auth.token}`, 'x-store-id': auth.storeId, ...headers },
    body: form,
  });
  const body = (await res.json()) as any;
  return { status: res.status, body, data: body?.data, headers: res.headers };
}

export const NO_DEPENDENCY_LOCK = `lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n  excludeLinksFromLockfile: false\n\nimporters:\n\n  .: {}\n`;

/** A minimal site project; `server` is the body of the server entry's fetch (request, env in scope). */
export function miniProject(
  options: { server?: string; files?: Record<string, string | Uint8Array>; packageJson?: Record<string, unknown>; lock?: string | null } = {},
): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = {
    'package.json': JSON.stringify(
      { name: 'mini-shop', version: '1.0.0', private: true, type: 'module', sayren: { templateVersion: '7' }, ...options.packageJson },
      null,
      2,
    ),
    'svc.storefront.json': JSON.stringify({ server: 'src/server.ts', client: ['src/client.ts'], public: 'public' }),
    'src/server.ts': `export default { async fetch(request: Request, env: any): Promise<Response> {\n${options.server ?? `  const url = new URL(request.url);\n  return new Response('<h1>mini ' + env.version + ' ' + url.pathname + '</h1><script type="module" src="' + env.siteUrl + (globalThis as any).__SVC_ASSETS__['client.js'] + '"></script>', { headers: { 'content-type': 'text/html; charset=utf-8' } });`}\n} };\n`,
    'src/client.ts': `document.body.dataset.ready = 'yes';\n`,
    'public/style.css': 'body { color: #333 }\n',
    ...options.files,
  };
  if (options.lock !== null) files['pnpm-lock.yaml'] = options.lock ?? NO_DEPENDENCY_LOCK;
  return files;
}

/** Queues a build of the current files and waits for its end. */
export async function build(api: Api): Promise<any> {
  const { buildId } = ok(await api('POST', '/v1/storefront/site/versions'), 202);
  return eventually(
    api,
    async () => {
      const b = ok(await api('GET', `/v1/storefront/site/builds/${buildId}`));
      return b.status === 'SUCCEEDED' || b.status === 'FAILED' ? b : undefined;
    },
    `build ${buildId}`,
  );
}

/** Creates the site from a template and waits until its deployment has published the first version. */
export async function createSite(api: Api, body: Record<string, unknown> = { templateId: 'basic' }) {
  const site = ok(await api('POST', '/v1/storefront/site', { body }), 201);
  const deployment = await eventually(
    api,
    async () => {
      const d = ok(await api('GET', '/v1/storefront/site/deployment'));
      return d.status === 'RUNNING' ? undefined : d;
    },
    'the site deployment',
  );
  return { site, deployment };
}

/** Waits until visitors get the published version (provisioning SYNCED). */
export const synced = (api: Api) =>
  eventually(
    api,
    async () => {
      const site = ok(await api('GET', '/v1/storefront/site'));
      return site.provisioning.status === 'SYNCED' && site.provisioning.servedVersionId === site.publishedVersionId ? site : undefined;
    },
    'provisioning',
  );

/** A person's storefront API (the seeded owner's by default) through a year-long access token: these tests move the clock by months. */
export async function storefrontApi(
  svc: TestService,
  person: { token: string; storeId: string } = { token: svc.ownerToken, storeId: svc.storeId },
): Promise<Api> {
  const token = await createAccessToken(svc, person.token, { scopes: ['storefront:rw'], expiresInDays: 365 });
  return apiClient(svc.url, { token, storeId: person.storeId });
}

/** The compiled CLI (`node bin/run.js …`) as the seeded owner through a year-long token, JSON or human output. */
export async function ownerCli(svc: TestService) {
  const { execa } = await import('execa');
  const { mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const token = await createAccessToken(svc, svc.ownerToken, { scopes: ['storefront:rw'], expiresInDays: 365 });
  const configDir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  const bin = join(import.meta.dirname, '..', '..', 'bin', 'run.js');
  return (args: string[]) =>
    execa('node', [bin, ...args], {
      reject: false,
      env: { SVC_API_URL: svc.url, SVC_TOKEN: token, SVC_STORE_ID: svc.storeId, SVC_CONFIG_DIR: configDir, CI: '1', NO_COLOR: '1' },
    });
}
