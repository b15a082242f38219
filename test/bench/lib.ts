import autocannon from 'autocannon';
import { execa, type ResultPromise } from 'execa';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const root = join(import.meta.dirname, '..', '..');

/** Runs a process that prints one JSON line when ready (svc dev --json, bare-h3.ts); returns it and the line. */
export async function startJsonReady(command: string, args: string[], env: Record<string, string> = {}) {
  const child = execa(command, args, { cwd: root, env, stdout: 'pipe', stderr: 'inherit', reject: false }) as ResultPromise;
  const line = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const nl = buffer.indexOf('\n');
      if (nl >= 0) resolve(buffer.slice(0, nl));
    });
    void child.then((result) => reject(new Error(`${command} ${args.join(' ')} exited ${result.exitCode} before ready`)));
  });
  return { child, ready: JSON.parse(line) };
}

export const startBareH3 = () => startJsonReady('node', ['--import', 'tsx', 'test/bench/bare-h3.ts']);

export const startSvcDev = (extra: string[] = []) =>
  startJsonReady('node', ['--no-node-snapshot', 'bin/run.js', 'dev', '--port', '0', '--json', '--data-dir', mkdtempSync(join(tmpdir(), 'svc-bench-')), ...extra]);

/** Requests per second of one GET target: 50 connections, the load generator in this process. */
export async function rps(url: string, headers: Record<string, string> = {}, seconds = 4): Promise<number> {
  const result = await autocannon({ url, headers, connections: 50, duration: seconds });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
