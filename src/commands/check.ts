import { Flags } from '@oclif/core';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ListrTask } from 'listr2';
import { ApiCommand } from '../cli/api-command.js';
import { escapeHtml } from '../server/html.js';

type Verify = import('../modules/storefront/index.js').VerifyResult;
type Step = import('../modules/storefront/index.js').CheckStep;

interface Report {
  kind: 'storefront' | 'app';
  dir: string;
  status: 'PASSED' | 'FAILED' | 'TIMED_OUT';
  verify: Verify;
  steps: Step[];
  sandboxed: boolean;
}

/** An app folder's immediate rules: its manifest (`manifest.json`, else the legacy `svc.app.json`). */
async function verifyApp(dir: string): Promise<Verify> {
  const { checkManifest } = await import('../kernel/app-manifest.js');
  const name = existsSync(join(dir, 'manifest.json')) ? 'manifest.json' : 'svc.app.json';
  const warnings =
    name === 'svc.app.json' ? [{ code: 'LEGACY_MANIFEST_NAME', path: name, message: 'svc.app.json은 예전 이름입니다. manifest.json으로 바꾸세요' }] : [];
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  } catch (error) {
    return { ok: false, errors: [{ code: 'MANIFEST_INVALID', path: name, message: (error as Error).message }], warnings };
  }
  const checked = checkManifest(value);
  if (checked.ok) return { ok: true, errors: [], warnings };
  return { ok: false, errors: checked.errors.map((e) => ({ code: `MANIFEST_${e.code}`, path: `${name}#${e.field}`, message: e.message })), warnings };
}

/** JUnit XML for CI: verify and each check step as a test case. */
function junit(report: Report): string {
  const cases = [
    {
      name: 'verify',
      status: report.verify.ok ? 'PASSED' : 'FAILED',
      durationMs: 0,
      output: report.verify.errors.map((e) => `${e.code} ${e.path ?? ''} ${e.message}`).join('\n'),
    },
    ...report.steps,
  ];
  const body = cases.map((c) => {
    const inner =
      c.status === 'FAILED' || c.status === 'TIMED_OUT'
        ? `<failure message="${escapeHtml(c.status)}">${escapeHtml(c.output)}</failure>`
        : c.status === 'SKIPPED'
          ? `<skipped message="${escapeHtml(c.output)}"/>`
          : '';
    return `    <testcase classname="svc.check.${report.kind}" name="${c.name}" time="${((c.durationMs ?? 0) / 1000).toFixed(3)}">${inner}</testcase>`;
  });
  const failures = cases.filter((c) => c.status === 'FAILED' || c.status === 'TIMED_OUT').length;
  const skipped = cases.filter((c) => c.status === 'SKIPPED').length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="svc check" tests="${cases.length}" failures="${failures}" skipped="${skipped}">\n${body.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}

export default class Check extends ApiCommand<typeof Check> {
  static override summary = 'Verify and check a storefront or app folder locally, as the service does (for CI): exit 1 on failure';
  static override description =
    "Runs the immediate rules (verify) and the checks — type check with TypeScript, lint, tests with node's test runner — in the folder, without network where the system allows it, and with no service needed.";
  static override examples = ['<%= config.bin %> check', '<%= config.bin %> check --dir shop --junit reports/svc-check.xml', '<%= config.bin %> check --json'];
  static override flags = {
    dir: Flags.string({ description: 'The project folder (svc.storefront.json or manifest.json)', default: '.' }),
    junit: Flags.string({ description: 'Also write the results as JUnit XML to this file' }),
  };

  async run() {
    const dir = resolve(this.flags.dir);
    const kind = existsSync(join(dir, 'svc.storefront.json'))
      ? 'storefront'
      : existsSync(join(dir, 'manifest.json')) || existsSync(join(dir, 'svc.app.json'))
        ? 'app'
        : null;
    if (!kind) this.error(`${dir} holds neither svc.storefront.json (storefront) nor manifest.json (app)`, { exit: 2 });
    const checks = await import('../modules/storefront/index.js');
    const { bubblewrapAvailable } = await import('../modules/storefront/index.js');
    // Your own project on your own machine: sandboxed where bubblewrap is, as the service runs it.
    const sandboxed = bubblewrapAvailable();
    const { projectFiles } = await import('../modules/storefront/index.js');

    const report: Report = { kind, dir, status: 'PASSED', verify: { ok: true, errors: [], warnings: [] }, steps: checks.pendingSteps(), sandboxed: sandboxed };
    // Steps are shown as they finish; the checks run once, in order, behind them.
    const settled = new Map(checks.STEP_NAMES.map((name) => [name, Promise.withResolvers<Step>()]));
    const abort = new AbortController();
    const verified = (kind === 'storefront' ? checks.verifyProject(projectFiles(dir), { denylist: [] }) : verifyApp(dir)).then((v) => (report.verify = v));
    const running = verified.then(async () => {
      const result = await checks.runProjectChecks(dir, {
        signal: AbortSignal.any([abort.signal, AbortSignal.timeout(checks.WALL_CLOCK_CAP_MS)]),
        sandboxed,
        onStep: (steps) => {
          for (const s of steps) if (!['PENDING', 'RUNNING'].includes(s.status)) settled.get(s.name)!.resolve(s);
        },
      });
      report.steps = result.steps;
      for (const s of result.steps) settled.get(s.name)!.resolve(s);
      report.status = result.status === 'PASSED' && !report.verify.ok ? 'FAILED' : result.status;
    });

    const stepTask = (name: Step['name']): ListrTask => ({
      title: name,
      task: async (_, task) => {
        const step = await settled.get(name)!.promise;
        task.title = `${name} ${step.status.toLowerCase()} (${step.durationMs ?? 0} ms)`;
        if (step.status === 'SKIPPED') task.skip(`${name}: ${step.output}`);
        else if (step.status !== 'PASSED') throw new Error(`${name} ${step.status}\n${step.output}`);
      },
    });
    const { Listr } = await import('listr2');
    const renderer = this.flags.json ? 'silent' : process.stdout.isTTY && !process.env.CI ? 'default' : 'simple';
    await new Listr(
      [
        {
          title: `verify (${kind})`,
          task: async () => {
            const v = await verified;
            if (!v.ok) throw new Error(v.errors.map((e) => `${e.code} ${e.path ?? ''}: ${e.message}`).join('\n'));
          },
        },
        ...checks.STEP_NAMES.map(stepTask),
      ],
      { renderer, exitOnError: false, concurrent: false, rendererOptions: { collapseErrors: false } } as never,
    )
      .run()
      .catch(() => undefined);
    await running.finally(() => abort.abort());

    if (this.flags.junit) writeFileSync(resolve(this.flags.junit), junit(report));
    this.output(report, () => {
      for (const w of report.verify.warnings) this.log(`warning ${w.code} ${w.path ?? ''}: ${w.message}`);
      if (!report.sandboxed) this.log('note: checks ran unsandboxed, with network (bubblewrap is not installed here)');
      this.log(`svc check ${report.status}`);
    });
    if (report.status !== 'PASSED') this.exit(1);
  }
}
