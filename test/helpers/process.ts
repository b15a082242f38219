import { execa, type ResultPromise } from 'execa';
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

/**
 * The compiled CLI's `svc dev` (or `svc serve`) as a real child process, resolved at its `--json` ready
 * line: for tests that must kill a service the way a crash would.
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
      resolve(JSON.parse(stdout.slice(0, nl)));
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
