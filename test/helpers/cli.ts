import { execa } from 'execa';
import { join } from 'node:path';

export const packageRoot = join(import.meta.dirname, '..', '..');

/**
 * The environment of a script or CI job: the parent's variables without its own SVC_* ones (they would
 * leak into the test), no terminal colours, CI set; then the test's variables.
 */
export function cliEnv(vars: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('SVC_') && k !== 'CI') env[k] = v;
  return { ...env, CI: '1', NO_COLOR: '1', ...vars };
}

export interface CliResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
}

/** Runs the compiled CLI (`npm test` builds it first) with no terminal on stdin, as CI would. */
export async function runCli(args: string[], vars: Record<string, string>, timeout = 30_000): Promise<CliResult> {
  const r = await execa(process.execPath, ['bin/run.js', ...args], {
    cwd: packageRoot,
    env: cliEnv(vars),
    extendEnv: false,
    reject: false,
    stdin: 'pipe',
    timeout,
  });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

/** The `--json` output of a run, or an error that shows what was printed instead. */
export function jsonOf(r: CliResult) {
  try {
    return JSON.parse(r.stdout);
  } catch {
    throw new Error(`not JSON (exit ${r.exitCode}): ${r.stdout}\n${r.stderr}`);
  }
}
