import { readdirSync, watch } from 'node:fs';
import { join, relative, sep } from 'node:path';
import * as esbuild from 'esbuild';
import { startLiveServer, type BundleResult, type ProjectConfig } from '../../modules/storefront/index.js';
import { RuntimeHost } from '../../runtime-host/index.js';

export interface DevServerOptions {
  dir: string;
  host: string;
  port: number;
  /** The service (svc dev) whose buyer API the shop uses, e.g. http://127.0.0.1:8787. */
  apiUrl: string;
  storeId: string;
  log: (line: string) => void;
}

/** Folders that are not the project's source (as a source upload skips them): installed packages — too many to watch — git's records, build output. */
const NOT_SOURCE = new Set(['node_modules', '.git', 'out', 'dist']);

const describe = (m: esbuild.Message) => `${m.location ? `${m.location.file}:${m.location.line}:${m.location.column} ` : ''}${m.text}`;

/**
 * The developer's own project on their own machine: bundled by esbuild in this process, in memory (nothing
 * is written into the project), with the hosted build's options but neither minified nor hashed.
 */
async function bundleInMemory(dir: string, config: ProjectConfig): Promise<BundleResult> {
  try {
    const [server, client] = await Promise.all([
      esbuild.build({
        absWorkingDir: dir,
        entryPoints: [config.server],
        bundle: true,
        format: 'iife',
        globalName: '__app',
        platform: 'neutral',
        target: 'es2023',
        mainFields: ['module', 'main'],
        conditions: ['worker', 'browser'],
        sourcemap: 'external',
        outfile: 'out/server.js',
        write: false,
        logLevel: 'silent',
      }),
      config.client.length === 0
        ? null
        : esbuild.build({
            absWorkingDir: dir,
            entryPoints: config.client,
            bundle: true,
            format: 'esm',
            platform: 'browser',
            target: 'es2022',
            splitting: true,
            entryNames: 'assets/[name]',
            chunkNames: 'assets/chunk-[hash]',
            assetNames: 'assets/[name]',
            outdir: 'out',
            sourcemap: 'linked',
            write: false,
            metafile: true,
            logLevel: 'silent',
          }),
    ]);
    const out = (path: string) => relative(join(dir, 'out'), path).split(sep).join('/');
    const clientFiles = new Map((client?.outputFiles ?? []).map((file) => [out(file.path), file.contents]));
    const clientEntries: Record<string, string> = {};
    for (const [path, meta] of Object.entries(client?.metafile.outputs ?? {})) {
      if (meta.entryPoint)
        clientEntries[
          `${meta.entryPoint
            .split('/')
            .pop()!
            .replace(/\.[cm]?[jt]sx?$/, '')}.js`
        ] = path.replace(/^out\//, '');
    }
    return {
      ok: true,
      output: {
        server: {
          code: server.outputFiles.find((f) => f.path.endsWith('server.js'))!.contents,
          map: server.outputFiles.find((f) => f.path.endsWith('server.js.map'))?.contents ?? null,
        },
        client: clientFiles,
        clientEntries,
      },
      log: [...server.warnings, ...(client?.warnings ?? [])].map(describe),
    };
  } catch (error) {
    const failure = error as { errors?: esbuild.Message[] };
    if (!failure.errors) throw error;
    return { ok: false, errors: failure.errors.map(describe), timedOut: false };
  }
}

/**
 * `svc storefront dev`: the project served locally as the service will serve it — pages rendered by the
 * server entry in the same isolated-vm runtime as hosted sites, client entries and public files served,
 * the buyer API of `apiUrl` passed through on the same origin — rebuilt on every save, and open pages reload.
 */
export async function startDevServer(options: DevServerOptions) {
  const runtime = new RuntimeHost();
  const server = await startLiveServer({
    dir: options.dir,
    host: options.host,
    port: options.port,
    storeId: options.storeId,
    id: 'dev',
    runtime,
    bundle: (config) => bundleInMemory(options.dir, config),
    buyerApi: async (request) => {
      const url = new URL(request.url);
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
      return fetch(`${options.apiUrl}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, body });
    },
    log: options.log,
  }).catch(async (error: unknown) => {
    await runtime.close();
    throw error;
  });
  // The project's top level and each of its source folders whole (a folder made while it runs is watched after a restart).
  const watchers = [watch(options.dir, () => server.rebuild())];
  for (const entry of readdirSync(options.dir, { withFileTypes: true })) {
    if (entry.isDirectory() && !NOT_SOURCE.has(entry.name)) watchers.push(watch(join(options.dir, entry.name), { recursive: true }, () => server.rebuild()));
  }
  return {
    url: server.url,
    async close() {
      for (const watcher of watchers) watcher.close();
      await server.close();
      await runtime.close();
    },
  };
}
