import { randomBytes } from 'node:crypto';
import { lstatSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { WorkerJob, WorkerResult } from './bundle-worker.js';
import { runSellerProcess } from './seller-sandbox.js';
import { cleanPath } from './source.js';
import { codePath, packageRoot } from '../../../paths.js';

/**
 * A site's bundling (esbuild), run in a child process of its own — in the seller sandbox when `sandboxed`
 * — so that nothing the project imports is read by the service: the worker (bundle-worker.ts) confines
 * esbuild to the project folder, and the service only reads back the files it wrote under `out/`.
 */

export interface BundleOutput {
  server: { code: Uint8Array; map: Uint8Array | null };
  /** Path under out/ → bytes, e.g. 'assets/client-HASH.js'. */
  client: Map<string, Uint8Array>;
  /** 'client.js' → 'assets/client-HASH.js'. */
  clientEntries: Record<string, string>;
}
/** `tooLarge`: an output passed the artifact limits (ARTIFACT_TOO_LARGE rather than a compile error). */
export type BundleResult = { ok: true; output: BundleOutput; log: string[] } | { ok: false; errors: string[]; timedOut: boolean; tooLarge?: boolean };

/** Spec 02 §8 build output limits. */
export const LIMITS = { serverBundle: 10 * 1024 * 1024, staticFile: 25 * 1024 * 1024, staticTotal: 100 * 1024 * 1024 };
/** Errors a failed bundle reports (the rest are counted). */
const MAX_ERRORS = 20;

/**
 * Running from TypeScript sources the worker is bundle-worker.ts loaded through tsx; built, tsc's
 * bundle-worker.js (codePath). Its folder and the package.json that makes it a module are readable in
 * the sandbox (nothing else of svc but its node_modules).
 */
const fromSources = import.meta.url.endsWith('.ts');
const WORKER_PATH = codePath('src/modules/storefront/builds/bundle-worker.ts');
const PACKAGE_JSON = join(packageRoot, 'package.json');
const workerArgv = () => [process.execPath, ...(fromSources ? ['--import', import.meta.resolve('tsx')] : []), WORKER_PATH];

class OutputRefused extends Error {
  constructor(
    message: string,
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

/** One file the worker wrote: a regular file (no link) really inside `out/`, at most `limit` bytes. */
function readOutput(outDir: string, path: string, limit: number): Uint8Array {
  if (cleanPath(path) !== path) throw new OutputRefused(`번들 출력 경로가 올바르지 않습니다: ${path}`);
  const file = join(outDir, path);
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile()) throw new OutputRefused(`번들 출력이 일반 파일이 아닙니다: ${path}`);
  const rel = relative(realpathSync(outDir), realpathSync(file));
  if (rel.startsWith('..') || rel !== path) throw new OutputRefused(`번들 출력이 out/ 밖을 가리킵니다: ${path}`);
  if (stat.size > limit) throw new OutputRefused(`${path}가 ${limit} bytes를 넘습니다 (${stat.size} bytes)`, true);
  return readFileSync(file);
}

function readOutputs(dir: string, result: Extract<WorkerResult, { ok: true }>): BundleOutput {
  const outDir = join(dir, 'out');
  const outDirStat = lstatSync(outDir, { throwIfNoEntry: false });
  if (!outDirStat?.isDirectory()) throw new OutputRefused('번들 출력 폴더(out/)가 없습니다');
  const code = readOutput(outDir, 'server.js', LIMITS.serverBundle);
  const map = lstatSync(join(outDir, 'server.js.map'), { throwIfNoEntry: false }) ? readOutput(outDir, 'server.js.map', LIMITS.staticFile) : null;
  const client = new Map<string, Uint8Array>();
  let total = 0;
  for (const path of result.clientOutputs) {
    if (!path.startsWith('assets/')) throw new OutputRefused(`번들 출력 경로가 올바르지 않습니다: ${path}`);
    const bytes = readOutput(outDir, path, LIMITS.staticFile);
    total += bytes.byteLength;
    if (total > LIMITS.staticTotal) throw new OutputRefused(`정적 파일이 모두 ${LIMITS.staticTotal} bytes를 넘습니다`, true);
    client.set(path, bytes);
  }
  for (const [entry, path] of Object.entries(result.clientEntries))
    if (!client.has(path)) throw new OutputRefused(`클라이언트 엔트리 ${entry}의 출력 ${path}가 없습니다`);
  return { server: { code, map }, client, clientEntries: result.clientEntries };
}

/**
 * Bundles the project in `dir` (installed already): the server entry as one script for the runtime (no
 * Node built-ins) and the client entries for browsers. Never throws for the project's own faults.
 */
export async function bundleProject(
  dir: string,
  config: { server: string; client: string[] },
  options: { sandboxed: boolean; minify: boolean; hashNames: boolean; wallMs: number; signal?: AbortSignal },
): Promise<BundleResult> {
  rmSync(join(dir, 'out'), { recursive: true, force: true });
  const marker = `@@svc-bundle-${randomBytes(16).toString('hex')}@@`;
  const job: WorkerJob = { server: config.server, client: config.client, minify: options.minify, hashNames: options.hashNames, marker };
  const outcome = await runSellerProcess(
    {
      command: [...workerArgv(), JSON.stringify(job)],
      project: dir,
      readOnly: [dirname(WORKER_PATH), PACKAGE_JSON],
      limits: { wallMs: options.wallMs },
      signal: options.signal,
    },
    options.sandboxed,
  );
  if (outcome.timedOut) return { ok: false, errors: ['빌드 시간을 넘었습니다'], timedOut: true };
  const at = outcome.output.lastIndexOf(`\n${marker}`);
  if (outcome.exitCode !== 0 || at < 0) {
    const why = outcome.canceled
      ? '빌드가 취소되었습니다'
      : outcome.outputExceeded
        ? '번들러의 출력이 너무 많습니다'
        : `번들러가 실패했습니다 (종료 코드 ${outcome.exitCode ?? '없음'})`;
    return { ok: false, errors: [why, ...outcome.output.trim().split('\n').slice(-MAX_ERRORS)], timedOut: false };
  }
  const result = JSON.parse(outcome.output.slice(at + marker.length + 1)) as WorkerResult;
  if (!result.ok) return { ok: false, errors: result.errors.slice(0, MAX_ERRORS), timedOut: false };
  try {
    return { ok: true, output: readOutputs(dir, result), log: result.warnings.slice(0, MAX_ERRORS) };
  } catch (error) {
    if (!(error instanceof OutputRefused)) throw error;
    return { ok: false, errors: [error.message], timedOut: false, ...(error.tooLarge ? { tooLarge: true } : {}) };
  }
}
