import type { BuildOutput } from '../../../../src/cli/app/build.js';
import { AppCommand } from '../../../../src/cli/app/app-command.js';

export default class AppDeploy extends AppCommand<typeof AppDeploy> {
  static override summary = 'Build and upload a new version of the app (an external-runtime app: upload its manifest)';
  static override description = [
    "Installations move to the new version at once unless it asks for more (scopes, hosts, events, public routes, schedules, tools, execution host); then it waits for the seller's consent as pendingVersion.",
    'An app with "runtime": "external" has nothing to build: its manifest, with external.url, is uploaded as the version, and calls go to that URL.',
  ].join('\n');
  static override examples = ['<%= config.bin %> app deploy', '<%= config.bin %> app deploy --profile prod'];

  async run() {
    const project = this.project();
    if (project.manifest.runtime === 'external') {
      const ctx = await this.tasks<{ appId?: string; version?: number }>(
        [
          {
            title: `Upload manifest (external runtime at ${project.manifest.external!.url})`,
            task: async (c, task) => {
              Object.assign(c, await this.deployExternal(project));
              task.title = `Uploaded version ${c.version} (external runtime at ${project.manifest.external!.url})`;
            },
          },
        ],
        {},
      );
      const result = {
        appId: ctx.appId,
        handle: project.manifest.handle,
        version: ctx.version,
        runtime: 'external',
        externalUrl: project.manifest.external!.url,
        functions: [] as string[],
      };
      this.output(result, () =>
        this.log(
          `Deployed ${result.handle} version ${result.version} (app ${result.appId}); calls go to ${result.externalUrl}. Install it with: svc app install`,
        ),
      );
      return;
    }
    const { buildApp } = await import('../../../../src/cli/app/build.js');
    const ctx = await this.tasks<{ build?: BuildOutput; appId?: string; version?: number }>(
      [
        { title: 'Build', task: async (c) => void (c.build = await buildApp(this.dir)) },
        {
          title: 'Upload version',
          task: async (c, task) => {
            Object.assign(c, await this.deployBuild(c.build!));
            task.title = `Uploaded version ${c.version}`;
          },
        },
      ],
      {},
    );
    const result = { appId: ctx.appId, handle: ctx.build!.project.manifest.handle, version: ctx.version, runtime: 'sandbox', functions: ctx.build!.functions };
    this.output(result, () => this.log(`Deployed ${result.handle} version ${result.version} (app ${result.appId}). Install it with: svc app install`));
  }
}
