import { AppCommand } from '../../../../src/cli/app/app-command.js';

export default class AppBuild extends AppCommand<typeof AppBuild> {
  static override summary = 'Validate manifest.json and bundle the functions into dist/ (esbuild, with a source map)';
  static override description =
    'Fails with HANDLER_MISSING when a declared tool, flow notification, schedule or public route has no function, and with MANIFEST_INVALID naming each key path that breaks a rule.';
  static override examples = ['<%= config.bin %> app build', '<%= config.bin %> app build --dir apps/demo --json'];

  async run() {
    const { buildApp } = await import('../../../../src/cli/app/build.js');
    const build = await buildApp(this.dir);
    for (const w of build.warnings) this.warn(w);
    this.output({ handle: build.project.manifest.handle, functions: build.functions, bytes: build.bytes, durationMs: build.durationMs }, () => {
      this.log(`Built ${build.project.manifest.handle}: ${build.functions.length} function(s), ${build.bytes} bytes in ${build.durationMs} ms → dist/app.js`);
      for (const f of build.functions) this.log(`  ${f}`);
    });
  }
}
