import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { z } from 'zod';
import { AdvisoryIndex } from './advisories.js';
import { checkDependencies } from './dependency-policy.js';
import { runSellerProcess } from './seller-sandbox.js';
import { cleanPath, SOURCE_LIMITS } from './source.js';

/**
 * Verify and checks of a storefront project (spec 02 §4.2), shared by the service (`…/verify`,
 * `…/checks`) and `svc check`, which runs them on a local folder without the service.
 */

export interface Finding {
  code: string;
  path: string | null;
  message: string;
}
export interface VerifyResult {
  ok: boolean;
  errors: Finding[];
  warnings: Finding[];
}

/** `svc.storefront.json`: the project's entries (Shapes of issue 14). */
export const projectConfig = z
  .object({
    server: z.string().min(1),
    client: z.array(z.string().min(1)).max(20).default([]),
    // Published as is: only a folder inside the project (no `..`, no absolute path).
    public: z
      .string()
      .min(1)
      .refine((path) => cleanPath(path) !== null, 'public는 프로젝트 안의 상대 경로여야 합니다')
      .optional(),
  })
  .strict();

/**
 * The immediate rules: manifest, project config and its entry files, lockfile, source limits and the
 * static part of the dependency policy (everything but the advisory look-up, which needs the network).
 */
export async function verifyProject(files: Map<string, Buffer>, options: { denylist: string[] }): Promise<VerifyResult> {
  const errors: Finding[] = [];
  const warnings: Finding[] = [];
  const error = (code: string, path: string | null, message: string) => errors.push({ code, path, message });

  let bytes = 0;
  for (const [path, content] of files) {
    bytes += content.byteLength;
    if (cleanPath(path) !== path) error('PATH_INVALID', path, '쓸 수 없는 파일 경로입니다');
  }
  if (files.size > SOURCE_LIMITS.files) error('TOO_MANY_FILES', null, `파일이 ${files.size}개로 ${SOURCE_LIMITS.files}개를 넘습니다`);
  if (bytes > SOURCE_LIMITS.bytes) error('SOURCE_TOO_LARGE', null, `소스가 ${bytes} bytes로 ${SOURCE_LIMITS.bytes} bytes를 넘습니다`);

  const config = files.get('svc.storefront.json');
  if (!config) error('PROJECT_CONFIG_MISSING', 'svc.storefront.json', 'svc.storefront.json이 없습니다');
  else {
    let parsed: z.output<typeof projectConfig> | null = null;
    try {
      parsed = projectConfig.parse(JSON.parse(config.toString('utf8')));
    } catch (e) {
      error('PROJECT_CONFIG_INVALID', 'svc.storefront.json', e instanceof z.ZodError ? z.prettifyError(e) : (e as Error).message);
    }
    for (const entry of parsed ? [parsed.server, ...parsed.client] : [])
      if (!files.has(entry)) error('ENTRY_MISSING', entry, `svc.storefront.json이 가리키는 ${entry}가 없습니다`);
  }
  if (!files.has('pnpm-lock.yaml')) error('LOCKFILE_MISSING', 'pnpm-lock.yaml', 'pnpm-lock.yaml이 없습니다 (pnpm install로 만드세요)');

  const dir = mkdtempSync(join(tmpdir(), 'svc-verify-'));
  try {
    for (const name of ['package.json', 'pnpm-lock.yaml', '.npmrc', 'pnpm-workspace.yaml', '.pnpmfile.cjs', '.pnpmfile.mjs']) {
      const content = files.get(name);
      if (content) writeFileSync(join(dir, name), content);
    }
    const report = await checkDependencies(dir, { advisories: new AdvisoryIndex(), denylist: options.denylist });
    const where = (f: { package: string; version: string | null }) => `${f.package}${f.version ? `@${f.version}` : ''}`;
    for (const r of report.rejected) {
      // A missing lockfile is reported once, above.
      if (r.reason === 'UNSUPPORTED_SOURCE' && !files.has('pnpm-lock.yaml')) continue;
      error(`DEPENDENCY_${r.reason}`, r.reason === 'INVALID_MANIFEST' ? 'package.json' : 'pnpm-lock.yaml', `${where(r)}: ${r.detail}`);
    }
    for (const w of report.warnings) warnings.push({ code: `DEPENDENCY_${w.reason}`, path: 'package.json', message: `${where(w)}: ${w.detail}` });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { ok: errors.length === 0, errors, warnings };
}

// ── checks ───────────────────────────────────────────────────────────────────

export type StepName = 'typecheck' | 'lint' | 'test';
export type StepStatus = 'PENDING' | 'RUNNING' | 'PASSED' | 'FAILED' | 'SKIPPED' | 'TIMED_OUT';
export interface CheckStep {
  name: StepName;
  status: StepStatus;
  durationMs: number | null;
  output: string;
}
export const STEP_NAMES: StepName[] = ['typecheck', 'lint', 'test'];
export const pendingSteps = (): CheckStep[] => STEP_NAMES.map((name) => ({ name, status: 'PENDING', durationMs: null, output: '' }));

const OUTPUT_CHARS = 8_000;
/** Spec 02 §8: checks end TIMED_OUT after 150 s. */
export const WALL_CLOCK_CAP_MS = 150_000;
const tail = (text: string) => (text.length > OUTPUT_CHARS ? `…${text.slice(-OUTPUT_CHARS)}` : text).trim();
const requireHere = createRequire(import.meta.url);
const tscBinary = join(dirname(requireHere.resolve('typescript/package.json')), 'bin', 'tsc');
const TEST_FILE = /(?:^|\/)[^/]+\.test\.(?:[cm]?[jt]s)$/;

const oxlintBinary = join(dirname(requireHere.resolve('oxlint/package.json')), 'bin', 'oxlint');

function projectPaths(dir: string, at = dir, out: string[] = []): string[] {
  for (const entry of readdirSync(at, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === '.git' || entry.name === 'dist') continue;
    const path = join(at, entry.name);
    if (entry.isDirectory()) projectPaths(dir, path, out);
    else if (entry.isFile()) out.push(relative(dir, path).split('\\').join('/'));
  }
  return out.sort();
}

/**
 * One step's process, in the seller sandbox when `sandboxed` (the project's tests and lint plugins are the
 * seller's code): only the project's copy is visible, no network, limits of CPU, memory, output and time.
 */
async function run(dir: string, command: string[], options: StepOptions): Promise<{ ok: boolean; output: string; aborted: boolean }> {
  const result = await runSellerProcess(
    {
      command,
      project: dir,
      signal: options.signal,
      // The wall-clock cap backs up the service clock's 150 s (which a manual clock may never reach).
      limits: { wallMs: WALL_CLOCK_CAP_MS, cpuSeconds: WALL_CLOCK_CAP_MS / 1000 },
      env: { CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
    },
    options.sandboxed,
  );
  const output = result.outputExceeded ? `${tail(result.output)}\n(출력이 한도를 넘어 중단했습니다)` : tail(result.output);
  return { ok: result.exitCode === 0 && !result.outputExceeded, output, aborted: result.canceled || result.timedOut };
}

interface StepOptions {
  signal: AbortSignal;
  sandboxed: boolean;
}

type StepResult = Pick<CheckStep, 'status' | 'output'>;
const stepOf = (result: { ok: boolean; output: string; aborted: boolean }): StepResult => ({
  status: result.aborted ? 'TIMED_OUT' : result.ok ? 'PASSED' : 'FAILED',
  output: result.output,
});

async function typecheck(dir: string, options: StepOptions): Promise<StepResult> {
  if (!existsSync(join(dir, 'tsconfig.json'))) return { status: 'SKIPPED', output: 'tsconfig.json이 없어 타입 검사를 건너뜁니다' };
  return stepOf(await run(dir, [process.execPath, tscBinary, '-p', 'tsconfig.json', '--noEmit', '--pretty', 'false'], options));
}

async function lint(dir: string, options: StepOptions): Promise<StepResult> {
  // oxlint's default set is its correctness rules; a warning fails the step, as CI linters do.
  return stepOf(await run(dir, [process.execPath, oxlintBinary, '--deny-warnings', '--format', 'unix', '.'], options));
}

async function test(dir: string, options: StepOptions): Promise<StepResult> {
  const files = projectPaths(dir).filter((p) => TEST_FILE.test(p));
  if (!files.length) return { status: 'SKIPPED', output: '*.test.ts 파일이 없어 테스트를 건너뜁니다' };
  // One process for all test files: stopping it on timeout leaves no test process behind.
  return stepOf(await run(dir, [process.execPath, '--test', '--test-isolation=none', '--test-reporter=spec', ...files], options));
}

const STEPS: Record<StepName, (dir: string, options: StepOptions) => Promise<StepResult>> = { typecheck, lint, test };

/**
 * Type check, lint and tests of the project in `dir`, one after another (each runs even when an earlier
 * one failed, as CI wants every answer). `onStep` sees each step start and end.
 */
export async function runProjectChecks(
  dir: string,
  options: StepOptions & { onStep?: (steps: CheckStep[]) => void },
): Promise<{ status: 'PASSED' | 'FAILED' | 'TIMED_OUT'; steps: CheckStep[] }> {
  const steps = pendingSteps();
  for (const step of steps) {
    if (options.signal.aborted) break;
    step.status = 'RUNNING';
    options.onStep?.(steps);
    const started = performance.now();
    const result = await STEPS[step.name](dir, options);
    Object.assign(step, result, { durationMs: Math.round(performance.now() - started) });
    options.onStep?.(steps);
  }
  for (const step of steps) if (step.status === 'PENDING' || step.status === 'RUNNING') step.status = 'TIMED_OUT';
  const status = steps.some((s) => s.status === 'TIMED_OUT') ? 'TIMED_OUT' : steps.some((s) => s.status === 'FAILED') ? 'FAILED' : 'PASSED';
  return { status, steps };
}

/** Writes `files` into a fresh directory for the checks. */
export function materialize(files: Map<string, Buffer>, prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const [path, content] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}
