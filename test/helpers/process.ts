import { execa, type ResultPromise } from 'execa';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cliEnv } from './cli.js';

const root = join(import.meta.dirname, '..', '..');

export interface ServiceProcess {
  url: string;
  storeId: string | null;
  ownerToken: string | null;
  proc: ResultPromise;
  /** Everything the process wrote to stderr so far. */
  stderr(): string;
  /** SIGKILL: no shutdown code runs, as when a machine dies. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

/** A start that printed the `--json` error line instead of the ready line: its `code` (PORT_IN_USE, …). */
export class ServiceStartError extends Error {
  constructor(readonly code: string, message: string) {
    super(`${code}: ${message}`);
  }
}

/** A loopback port free a moment ago: another process may take it before the caller listens. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * `svc serve` on a port chosen before it starts (a deployment's processes need each other's addresses):
 * `port`, or a free one. Another test file's service can take a probed port first: then it tries another.
 */
export async function serveOnPort(env: (port: number) => Record<string, string>, port?: number): Promise<ServiceProcess & { port: number }> {
  for (let attempt = 1; ; attempt++) {
    const chosen = port ?? (await freePort());
    try {
      return { ...(await startServiceProcess(['serve'], env(chosen))), port: chosen };
    } catch (error) {
      if (!(error instanceof ServiceStartError && error.code === 'PORT_IN_USE') || attempt === 5) throw error;
      port = undefined;
    }
  }
}

/**
 * The compiled CLI's `svc dev` (or `svc serve`) as a real child process, resolved at its `--json` ready
 * line (a start that fails instead rejects with its error line): for tests that must kill a service the
 * way a crash would.
 */
export async function startServiceProcess(args: string[], env: Record<string, string> = {}): Promise<ServiceProcess> {
  const proc = execa(process.execPath, ['bin/run.js', ...args, '--json'], { cwd: root, env: cliEnv(env), extendEnv: false, reject: false, stdin: 'ignore' });
  let stdout = '';
  let stderr = '';
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = await new Promise<{ url: string; storeId: string | null; ownerToken: string | null }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line within 20 s; stderr: ${stderr}`)), 20_000);
    proc.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const nl = stdout.indexOf('\n');
      if (nl === -1) return;
      clearTimeout(timer);
      const line = JSON.parse(stdout.slice(0, nl));
      if (line.event === 'ready') resolve(line);
      else reject(new ServiceStartError(line.code, line.message));
    });
    void proc.then(() => reject(new Error(`exited before ready; stderr: ${stderr}`)));
  });
  return {
    ...ready,
    proc,
    stderr: () => stderr,
    async kill() {
      proc.kill('SIGKILL');
      await proc;
    },
    async stop() {
      proc.kill('SIGTERM');
      await proc;
    },
  };
}
