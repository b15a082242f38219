import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Flags } from '@oclif/core';
import { UsageError } from '../../../../src/cli/usage-error.js';
import { BuildFailed, siteAddress, StorefrontCommand, type BuildView, type SiteView } from '../../../../src/cli/storefront/storefront-command.js';

interface DeployContext {
  site?: SiteView;
  upload?: { files: number; added: string[]; changed: string[]; removed: string[] };
  build?: BuildView;
  number?: string;
  published?: SiteView;
}

export default class StorefrontDeploy extends StorefrontCommand<typeof StorefrontDeploy> {
  static override summary = 'Upload the project, build a version on the service (dependency policy, install, bundle) and optionally publish it';
  static override description =
    "Creates the store's site first when it has none (address: --slug, default the store code). The build checks the dependencies against the service's policy before installing anything; its report is printed. Exit 1 when the build fails.";
  static override examples = [
    '<%= config.bin %> storefront deploy',
    '<%= config.bin %> storefront deploy --publish',
    '<%= config.bin %> storefront deploy --publish --json',
  ];
  static override flags = {
    publish: Flags.boolean({ description: 'Publish the new version once built (and wait until visitors get it)' }),
    slug: Flags.string({ description: 'Address of a site created by this deploy (default: the store code)' }),
    template: Flags.option({
      options: ['basic', 'stay'] as const,
      description: 'Template recorded for a site created by this deploy',
      default: 'basic' as const,
    })(),
  };

  async run() {
    if (!existsSync(join(this.dir, 'svc.storefront.json')))
      throw new UsageError(`${this.dir} is not a storefront project (no svc.storefront.json): run svc storefront init, or pass --dir`);
    const { packProject, projectFiles } = await import('../../../../src/cli/storefront/project.js');
    const files = projectFiles(this.dir);
    const archive = await packProject(files);
    const ctx = await this.tasks<DeployContext>(
      [
        {
          title: 'Site',
          task: async (c, task) => {
            c.site = await this.site();
            if (!c.site.siteId) {
              task.title = 'Creating the site';
              await this.storeRequest('POST', '/v1/storefront/site', {
                body: { templateId: this.flags.template, ...(this.flags.slug ? { slug: this.flags.slug } : {}) },
              });
              // The new site's deployment puts the template in place first; the upload comes after it.
              while ((await this.storeRequest<{ status: string }>('GET', '/v1/storefront/site/deployment')).status === 'RUNNING') await sleep(300);
              c.site = await this.site();
            }
            task.title = `Site ${siteAddress(c.site)}`;
          },
        },
        {
          title: `Upload ${files.size} files (${(archive.length / 1024).toFixed(1)} KiB)`,
          task: async (c, task) => {
            const form = new FormData();
            form.set('file', new Blob([archive as Uint8Array<ArrayBuffer>], { type: 'application/gzip' }), 'site.tar.gz');
            c.upload = await this.storeRequest('PUT', '/v1/storefront/site/files', { form });
            task.title = `Uploaded ${c.upload!.files} files (${c.upload!.added.length} added, ${c.upload!.changed.length} changed, ${c.upload!.removed.length} removed)`;
          },
        },
        {
          title: 'Build (dependency policy, install, bundle)',
          task: async (c, task) => {
            const { buildId } = await this.storeRequest<{ buildId: string }>('POST', '/v1/storefront/site/versions');
            c.build = await this.waitForBuild(buildId);
            if (c.build.status === 'FAILED') throw new BuildFailed(c.build);
            c.number = (await this.versions()).find((v) => v.versionId === c.build!.versionId)?.number;
            task.title = `Built ${c.number} (${c.build.versionId})`;
          },
        },
        {
          title: 'Publish',
          enabled: () => this.flags.publish,
          task: async (c, task) => {
            await this.storeRequest('POST', `/v1/storefront/site/versions/${c.build!.versionId}/publish`, {
              body: { expectedPublishedVersionId: c.site!.publishedVersionId ?? null },
            });
            c.published = await this.waitForSynced();
            task.title = `Published ${c.number}: ${siteAddress(c.published)}`;
          },
        },
      ],
      {},
    );
    const build = ctx.build!;
    const site = ctx.published ?? ctx.site!;
    this.output({ site, upload: ctx.upload, build, published: Boolean(ctx.published) }, () => {
      this.printDependencies(build);
      this.log(
        ctx.published
          ? `${ctx.number} is live at ${siteAddress(site)}${site.visibility === 'COMING_SOON' ? ' (visitors see "coming soon" until the site is public; svc storefront preview opens it for you)' : ''}`
          : `Built ${ctx.number}. Publish it with: svc storefront publish ${ctx.number}`,
      );
    });
  }
}
