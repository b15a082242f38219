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
  constructor(
    readonly code: string,
    message: string,
  ) {
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
 * A deployment of `svc serve` processes on this machine behind one public address (the first process's
 * port), each started with `env`. Process `i` starts on its last port again, or on a free one the first
 * time — and whenever another test file's service took that port meanwhile.
 */
export async function localDeployment(env: Record<string, string>) {
  const ports = [await freePort()];
  const publicUrl = `http://127.0.0.1:${ports[0]}`;
  return {
    url: (i: number) => `http://127.0.0.1:${ports[i]}`,
    async serve(i: number): Promise<ServiceProcess> {
      for (let attempt = 1; ; attempt++) {
        ports[i] ??= await freePort();
        try {
          return await startServiceProcess(['serve'], { ...env, SVC_PORT: String(ports[i]), SVC_HOST: '127.0.0.1', SVC_PUBLIC_URL: publicUrl });
        } catch (error) {
          if (!(error instanceof ServiceStartError && error.code === 'PORT_IN_USE') || attempt === 5) throw error;
          delete ports[i];
        }
      }
    },
  };
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
