import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fail } from '../../../server/errors.js';
import { defineMessages } from '../../../server/messages.js';
import type { StorefrontConfig } from '../../../server/services.js';

/**
 * Seller code — a site build (pnpm and esbuild), a project's checks (tsc, oxlint, its tests) and the
 * editing environment's builds — runs in a child process that sees only the project's copy: on Linux
 * inside bubblewrap (user, pid, network, ipc and mount namespaces; uid 65534; nothing of the data dir, keys,
 * database or the service's environment), under resource limits, and killed with its whole process tree
 * when it overruns, is cancelled, or the service goes away. docs/security.md says what it can reach.
 *
 * `svc serve` refuses these operations without bubblewrap unless the operator opts out
 * (`SVC_SELLER_SANDBOX=off`); `svc dev` on a developer's own machine runs them unsandboxed with one
 * warning line when bubblewrap is missing.
 */

defineMessages({
  SELLER_SANDBOX_UNAVAILABLE:
    '판매자 코드를 격리할 샌드박스(bubblewrap)가 이 서버에 없습니다. 운영자가 bubblewrap을 설치해야 빌드·검사·편집 환경을 쓸 수 있습니다.',
});

/** `required`: bubblewrap or refuse (svc serve); `preferred`: bubblewrap when present (svc dev); `off`: the operator opted out. */
export type SandboxPolicy = StorefrontConfig['sellerSandbox'];

export interface SellerLimits {
  /** CPU seconds of each process (RLIMIT_CPU). */
  cpuSeconds: number;
  /** Address space of each process (RLIMIT_AS): V8 and Go reserve far more than they use, so this is generous. */
  memoryBytes: number;
  /** Largest file a process may write (RLIMIT_FSIZE). */
  fileBytes: number;
  /** Open files of a process (RLIMIT_NOFILE). */
  openFiles: number;
  /** Output kept and read: past it the process is stopped and the run counts as failed. */
  outputBytes: number;
  wallMs: number;
}

export const DEFAULT_SELLER_LIMITS: SellerLimits = {
  cpuSeconds: 300,
  memoryBytes: 8 * 1024 ** 3,
  fileBytes: 256 * 1024 ** 2,
  openFiles: 4096,
  outputBytes: 4 * 1024 ** 2,
  wallMs: 10 * 60_000,
};

export interface SellerProcess {
  /** argv; binaries by absolute path (they must lie in a bound folder or the system's /usr). */
  command: string[];
  /** The project's copy: the one writable folder (besides a private /tmp), also the working directory. */
  project: string;
  /** Other host folders the process may read (tool packages); bound read-only at the same paths. */
  readOnly?: string[];
  /** Other host folders it may write (pnpm's package store). */
  writable?: string[];
  /** `registry`: the host network, for an install from the configured registry (no seller code runs then). */
  network?: 'none' | 'registry';
  env?: Record<string, string>;
  limits?: Partial<SellerLimits>;
  signal?: AbortSignal;
  /** Output lines as they come (a build log). */
  onOutput?: (chunk: string) => void;
}

export interface SellerOutcome {
  exitCode: number | null;
  /** The last `tailChars` characters of stdout and stderr together. */
  output: string;
  timedOut: boolean;
  canceled: boolean;
  /** The process printed more than `outputBytes` and was stopped. */
  outputExceeded: boolean;
  sandboxed: boolean;
}

const require = createRequire(import.meta.url);
/** Node's own install (bin/node and its libraries), readable inside. */
const NODE_HOME = dirname(dirname(process.execPath));
/** The folder holding svc's dependencies (esbuild, typescript, oxlint, pnpm, tsx): readable inside, never writable. */
export const TOOL_MODULES = dirname(dirname(require.resolve('esbuild/package.json')));
const TAIL_CHARS = 64_000;

let probed: boolean | undefined;
/** Whether bubblewrap can make a sandbox here (installed, and user namespaces allowed); probed once. */
export function bubblewrapAvailable(): boolean {
  if (probed === undefined) {
    try {
      execFileSync(
        'bwrap',
        [
          '--unshare-all',
          '--die-with-parent',
          '--ro-bind',
          '/usr',
          '/usr',
          '--ro-bind-try',
          '/bin',
          '/bin',
          '--ro-bind-try',
          '/lib',
          '/lib',
          '--ro-bind-try',
          '/lib64',
          '/lib64',
          '--proc',
          '/proc',
          '--dev',
          '/dev',
          'true',
        ],
        { stdio: 'ignore', timeout: 5_000 },
      );
      probed = true;
    } catch {
      probed = false;
    }
  }
  return probed;
}

let warned = false;
/**
 * Whether seller processes run in the sandbox under `policy`; throws 503 SELLER_SANDBOX_UNAVAILABLE where
 * the policy requires it and it is missing. Called before a build, check or editing environment is accepted.
 */
export function sellerSandboxed(policy: SandboxPolicy): boolean {
  if (policy === 'off') return false;
  if (bubblewrapAvailable()) return true;
  if (policy === 'required') throw fail(503, 'SELLER_SANDBOX_UNAVAILABLE', { sandbox: 'bubblewrap' });
  if (!warned) {
    warned = true;
    console.error(
      '[svc] bubblewrap (bwrap) not found: storefront builds, checks and editing run unsandboxed on this machine, as your own code. Install it (apt-get install bubblewrap) to run them as svc serve does.',
    );
  }
  return false;
}

/** The start banner's line for an operator (svc serve): how seller code will run here. */
export function sellerSandboxLine(policy: SandboxPolicy): string {
  if (policy === 'off') return "  seller code    UNSANDBOXED (SVC_SELLER_SANDBOX=off): builds, checks and editing run as this service's user";
  if (bubblewrapAvailable()) return '  seller code    sandboxed (bubblewrap): builds, checks and editing see only their project';
  return '  seller code    refused: builds, checks and editing need bubblewrap (apt-get install bubblewrap; SVC_SELLER_SANDBOX=off runs them unsandboxed)';
}

/** bubblewrap's arguments: a root of read-only system folders, a private /tmp, /proc and /dev, the project and the tools. */
function bubblewrapArgs(spec: SellerProcess): string[] {
  const args = [
    '--unshare-all',
    ...(spec.network === 'registry' ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--uid',
    '65534',
    '--gid',
    '65534',
    '--hostname',
    'sandbox',
    '--ro-bind',
    '/usr',
    '/usr',
    '--ro-bind-try',
    '/bin',
    '/bin',
    '--ro-bind-try',
    '/lib',
    '/lib',
    '--ro-bind-try',
    '/lib64',
    '/lib64',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
  ];
  // Name resolution and certificates for the registry; nothing else of /etc.
  if (spec.network === 'registry')
    for (const file of ['/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/ssl', '/etc/ca-certificates']) args.push('--ro-bind-try', file, file);
  for (const dir of new Set([NODE_HOME, TOOL_MODULES, ...(spec.readOnly ?? [])])) args.push('--ro-bind', dir, dir);
  for (const dir of [spec.project, ...(spec.writable ?? [])]) args.push('--bind', dir, dir);
  args.push('--chdir', spec.project, '--');
  return args;
}

/** prlimit's arguments for `limits` (util-linux; present wherever bubblewrap is). */
function limitArgs(limits: SellerLimits): string[] {
  return [
    'prlimit',
    `--cpu=${limits.cpuSeconds}`,
    `--as=${limits.memoryBytes}`,
    `--fsize=${limits.fileBytes}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
    '--',
  ];
}

/** Sends SIGKILL to `pid` (negative: a process group), which may be gone already. */
function killQuietly(pid: number) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/**
 * Runs one seller process to its end. Never throws for the process's own failure: the outcome says how it
 * ended. `sandboxed` comes from `sellerSandboxed(policy)`.
 *
 * Stopping it (wall time, cancel, too much output) kills its whole tree, never only the process we started:
 * a grandchild left alive would keep the output pipes open and the run from ever ending. Sandboxed, that is
 * the sandbox's first process, whose pid bubblewrap reports (`--json-status-fd`): when it dies, the kernel
 * ends every process of its pid namespace. Killing bubblewrap itself instead could orphan a sandbox it had
 * just cloned. Unsandboxed, it is the process group the command leads.
 */
export async function runSellerProcess(spec: SellerProcess, sandboxed: boolean): Promise<SellerOutcome> {
  const limits = { ...DEFAULT_SELLER_LIMITS, ...spec.limits };
  if (spec.signal?.aborted) return { exitCode: null, output: '', timedOut: false, canceled: true, outputExceeded: false, sandboxed };
  const argv = sandboxed ? ['bwrap', '--json-status-fd', '3', ...bubblewrapArgs(spec), ...limitArgs(limits), ...spec.command] : spec.command;
  // The service's environment (SVC_OPERATOR_TOKEN, database URLs …) never reaches seller code.
  const env = {
    PATH: sandboxed ? `${NODE_HOME}/bin:/usr/bin:/bin` : `${NODE_HOME}/bin:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: spec.project,
    TMPDIR: sandboxed ? '/tmp' : spec.project,
    ...spec.env,
  };
  // Loaded here, not at the top: builds and checks are rare, and execa adds ~50 ms to every service start.
  const { execa } = await import('execa');
  const child = execa(argv[0], argv.slice(1), {
    cwd: spec.project,
    env,
    extendEnv: false,
    stdio: ['ignore', 'pipe', 'pipe', ...(sandboxed ? ['pipe' as const] : [])],
    all: true,
    buffer: false,
    reject: false,
    // Unsandboxed, the command leads a process group of its own, so its children can be killed with it.
    detached: !sandboxed,
  });
  let stopped: 'timeout' | 'canceled' | 'output' | null = null;
  let sandboxInit: number | null = null;
  const killTree = () => {
    if (!sandboxed) killQuietly(-child.pid!);
    else if (sandboxInit !== null) killQuietly(sandboxInit);
    // Until bubblewrap reports its sandbox's pid, the kill waits for it (below).
  };
  const stop = (why: NonNullable<typeof stopped>) => {
    stopped ??= why;
    killTree();
  };
  if (sandboxed) {
    let status = '';
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      status += chunk.toString();
      const pid = /"child-pid":\s*(\d+)/.exec(status)?.[1];
      if (pid && sandboxInit === null) {
        sandboxInit = Number(pid);
        if (stopped) killTree();
      }
    });
  }
  const timer = setTimeout(() => stop('timeout'), limits.wallMs);
  const onAbort = () => stop('canceled');
  spec.signal?.addEventListener('abort', onAbort, { once: true });

  let output = '';
  let bytes = 0;
  child.all!.setEncoding('utf8');
  child.all!.on('data', (chunk: string) => {
    bytes += Buffer.byteLength(chunk);
    if (bytes > limits.outputBytes) stop('output');
    spec.onOutput?.(chunk);
    output = (output + chunk).slice(-TAIL_CHARS);
  });
  try {
    const result = await child;
    return {
      exitCode: stopped ? null : (result.exitCode ?? null),
      output,
      timedOut: stopped === 'timeout',
      canceled: stopped === 'canceled',
      outputExceeded: stopped === 'output',
      sandboxed,
    };
  } finally {
    clearTimeout(timer);
    spec.signal?.removeEventListener('abort', onAbort);
  }
}

/** A tool package's folder (`typescript`, `oxlint`, `pnpm` …): its binaries' paths, and a folder to bind when it is not under TOOL_MODULES. */
export const toolPackage = (name: string) => dirname(require.resolve(`${name}/package.json`));
