/**
 * A site build's bundling, run as its own process in the seller sandbox by bundle.ts (never inside the
 * service): the project folder is its working directory, its one argument the job as JSON. It writes the
 * bundles under `out/` and prints one line, the job's marker followed by the result as JSON, as its last output.
 * Self-contained on purpose: it imports esbuild and the confinement plugin, nothing of the service.
 */
import * as esbuild from 'esbuild';
import { confinePlugin } from './confine-plugin.js';

export interface WorkerJob {
  server: string;
  client: string[];
  minify: boolean;
  hashNames: boolean;
  /** Unguessable per run, so no text of the project's (an error message) can pass for the result. */
  marker: string;
}
export type WorkerResult = { ok: true; clientOutputs: string[]; clientEntries: Record<string, string>; warnings: string[] } | { ok: false; errors: string[] };

/** Messages reported, each cut to a length: the result line stays well inside what the service keeps of the output. */
const MAX_MESSAGES = 50;
const describe = (m: esbuild.Message) => `${m.location ? `${m.location.file}:${m.location.line}:${m.location.column} ` : ''}${m.text}`.slice(0, 500);

async function bundle(job: WorkerJob): Promise<WorkerResult> {
  const dir = process.cwd();
  // The server entry for the sandbox (no Node built-ins), client entries with hashed names.
  const builds = await Promise.allSettled([
    esbuild.build({
      absWorkingDir: dir,
      entryPoints: [job.server],
      bundle: true,
      format: 'iife',
      globalName: '__app',
      platform: 'neutral',
      target: 'es2023',
      mainFields: ['module', 'main'],
      conditions: ['worker', 'browser'],
      sourcemap: 'external',
      outfile: 'out/server.js',
      write: true,
      logLevel: 'silent',
      minify: job.minify,
      plugins: [confinePlugin(dir)],
    }),
    job.client.length === 0
      ? null
      : esbuild.build({
          absWorkingDir: dir,
          entryPoints: job.client,
          bundle: true,
          format: 'esm',
          platform: 'browser',
          target: 'es2022',
          splitting: true,
          entryNames: job.hashNames ? 'assets/[name]-[hash]' : 'assets/[name]',
          chunkNames: 'assets/chunk-[hash]',
          assetNames: job.hashNames ? 'assets/[name]-[hash]' : 'assets/[name]',
          outdir: 'out',
          sourcemap: 'linked',
          write: true,
          metafile: true,
          minify: job.minify,
          logLevel: 'silent',
          plugins: [confinePlugin(dir)],
        }),
  ]);
  const errors = builds.flatMap((b) => {
    if (b.status === 'fulfilled') return [];
    const failure = b.reason as { errors?: esbuild.Message[]; message?: string };
    return failure.errors ? failure.errors.map(describe) : [String(failure.message ?? failure).slice(0, 500)];
  });
  if (errors.length) return { ok: false, errors: errors.slice(0, MAX_MESSAGES) };
  const [server, client] = builds.map((b) => (b as PromiseFulfilledResult<esbuild.BuildResult<{ metafile: true }> | null>).value);
  const clientEntries: Record<string, string> = {};
  const outputs = Object.entries(client?.metafile.outputs ?? {});
  for (const [outPath, meta] of outputs) {
    if (meta.entryPoint)
      clientEntries[
        `${meta.entryPoint
          .split('/')
          .pop()!
          .replace(/\.[cm]?[jt]sx?$/, '')}.js`
      ] = outPath.replace(/^out\//, '');
  }
  return {
    ok: true,
    clientEntries,
    clientOutputs: outputs.map(([outPath]) => outPath.replace(/^out\//, '')),
    warnings: [...server!.warnings, ...(client?.warnings ?? [])].slice(0, MAX_MESSAGES).map(describe),
  };
}

const job = JSON.parse(process.argv[2]) as WorkerJob;
const result = await bundle(job).catch((error: unknown): WorkerResult => ({ ok: false, errors: [(error as Error).message] }));
process.stdout.write(`\n${job.marker}${JSON.stringify(result)}\n`);
