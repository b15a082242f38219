import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pack } from 'tar-stream';

/**
 * A real npm registry on loopback: Verdaccio with no uplink (nothing leaves the machine), storage in a
 * temporary folder, anyone may publish. Fixture packages are published over its HTTP API as `npm publish` does.
 */
export interface LocalRegistry {
  url: string;
  publish(name: string, version: string, files: Record<string, string>, manifest?: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

async function packageTarball(files: Record<string, string>): Promise<Buffer> {
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise((ok) => tar.on('end', ok));
  // A fixed time, as npm pack writes: the same files make the same tarball (and integrity) in every run.
  for (const [name, content] of Object.entries(files))
    tar.entry({ name: `package/${name}`, type: 'file', mode: 0o644, mtime: new Date(499162500000) }, content);
  tar.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}

export async function startLocalRegistry(): Promise<LocalRegistry> {
  let verdaccio: typeof import('verdaccio');
  try {
    verdaccio = await import('verdaccio');
  } catch (error) {
    throw new Error(`Verdaccio (devDependency "verdaccio") is missing — run npm ci: ${(error as Error).message}`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'svc-registry-'));
  const config = {
    self_path: dir,
    storage: join(dir, 'storage'),
    uplinks: {},
    packages: { '**': { access: '$all', publish: '$all', unpublish: '$all' } },
    auth: { htpasswd: { file: join(dir, 'htpasswd'), max_users: -1 } },
    log: { type: 'stdout', format: 'pretty', level: 'fatal' },
    security: { api: { legacy: true } },
    server: { keepAliveTimeout: 0 },
  };
  const app = (await verdaccio.runServer(config as never)) as unknown as Server;
  await new Promise<void>((ok) => app.listen(0, '127.0.0.1', () => ok()));
  const url = `http://127.0.0.1:${(app.address() as AddressInfo).port}/`;
  return {
    url,
    async publish(name, version, files, manifest = {}) {
      const pkg = { name, version, main: 'index.js', ...manifest };
      const tarball = await packageTarball({ 'package.json': JSON.stringify(pkg), ...files });
      const file = `${name.split('/').pop()}-${version}.tgz`;
      const body = {
        _id: name,
        name,
        'dist-tags': { latest: version },
        versions: {
          [version]: {
            ...pkg,
            _id: `${name}@${version}`,
            dist: {
              shasum: createHash('sha1').update(tarball).digest('hex'),
              integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
              tarball: `${url}${name}/-/${file}`,
            },
          },
        },
        _attachments: { [file]: { content_type: 'application/octet-stream', data: tarball.toString('base64'), length: tarball.length } },
      };
      const res = await fetch(`${url}${name.replace('/', '%2f')}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`publishing ${name}@${version} to the local registry failed: ${res.status} ${await res.text()}`);
    },
    async close() {
      await new Promise((ok) => app.close(ok));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
