import { relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiCallError } from '../../../../src/client/api-client.js';
import { AppCommand } from '../../../../src/cli/app/app-command.js';
import { ProjectError } from '../../../../src/cli/app/project.js';

const IGNORED = /(^|[\\/])(dist|node_modules|\.git)([\\/]|$)/;
const DEBOUNCE_MS = 30;
const LOG_POLL_MS = 500;

export default class AppDev extends AppCommand<typeof AppDev> {
  static override summary = 'Build, deploy and install on every save, and stream the function logs';
  static override description =
    'Watches the app folder; each change is rebuilt, uploaded as a new version and installed in the store (consenting to what it newly asks), usually in well under a second. Function runs and their console output appear as they happen. Ctrl-C stops.';
  static override examples = ['<%= config.bin %> app dev', '<%= config.bin %> app dev --store dev-store'];

  async run() {
    const { buildApp } = await import('../../../../src/cli/app/build.js');
    const storeId = await this.storeId();
    let appId: string | null = null;
    let lastRun: string | null = null;

    const cycle = async () => {
      const started = performance.now();
      try {
        const build = await buildApp(this.dir);
        for (const w of build.warnings) this.warn(w);
        const deployed = await this.deployBuild(build);
        appId = deployed.appId;
        const inst = await this.installApp(build.project.manifest.handle);
        const ms = Math.round(performance.now() - started);
        this.log(`↻ ${build.project.manifest.handle} v${deployed.version} installed in ${storeId} (${inst.installationId}) in ${ms} ms`);
        if (inst.needsSetup) this.log(`  needs settings: ${inst.missingSettings.join(', ')}`);
      } catch (error) {
        if (error instanceof ProjectError) {
          this.logToStderr(`✗ ${error.code}: ${error.message}`);
          for (const i of error.issues) this.logToStderr(`  - ${i.field || '(manifest)'}: ${i.message} (${i.code})`);
        } else if (error instanceof ApiCallError) {
          this.logToStderr(`✗ ${error.body.code}: ${error.body.message}`);
          for (const f of error.body.fieldErrors ?? []) this.logToStderr(`  - ${f.field}: ${f.message} (${f.code})`);
        } else throw error;
      }
    };

    await cycle();
    if (appId) lastRun = (await this.logsSince(appId, null, 1)).at(-1)?.executionId ?? null;

    // One cycle at a time; changes during a cycle schedule exactly one more.
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<void> | null = null;
    let again = false;
    const schedule = () => {
      clearTimeout(timer);
      timer = setTimeout(async () => {
        if (running) return void (again = true);
        do {
          again = false;
          running = cycle();
          await running;
          running = null;
        } while (again);
      }, DEBOUNCE_MS);
    };
    // chokidar, not fs.watch: a file saved by rename (vim, `sed -i`, atomic-save editors) is a new file, which
    // fs.watch stops following after the first save; chokidar follows it, and new and deleted files too.
    const { watch } = await import('chokidar');
    const watcher = watch(this.dir, { ignoreInitial: true, ignored: (path) => IGNORED.test(relative(this.dir, path)) });
    watcher.on('all', schedule);
    watcher.on('error', (error) => this.logToStderr(`✗ watching ${this.dir}: ${error instanceof Error ? error.message : String(error)}`));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    this.log(`Watching ${this.dir} — Ctrl-C to stop.`);

    let stopped = false;
    process.once('SIGINT', () => {
      stopped = true;
      void watcher.close();
    });
    while (!stopped) {
      await sleep(LOG_POLL_MS);
      if (!appId) continue;
      try {
        for (const x of await this.logsSince(appId, lastRun)) {
          this.printExecution(x);
          lastRun = x.executionId;
        }
      } catch (error) {
        if (!(error instanceof ApiCallError)) throw error;
      }
    }
  }
}
