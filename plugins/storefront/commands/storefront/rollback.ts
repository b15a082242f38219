import { Args } from '@oclif/core';
import { siteAddress, StorefrontCommand } from '../../../../src/cli/storefront/storefront-command.js';

export default class StorefrontRollback extends StorefrontCommand<typeof StorefrontRollback> {
  static override summary = 'Publish an earlier version again (default: the one published just before the current one)';
  static override examples = ['<%= config.bin %> storefront rollback', '<%= config.bin %> storefront rollback v2'];
  static override args = { version: Args.string({ description: 'v2, or a version id (default: the previous published one)' }) };

  async run() {
    const before = await this.site();
    const versionId = this.args.version ? await this.versionId(this.args.version) : undefined;
    await this.storeRequest('POST', '/v1/storefront/site/rollback', {
      body: { ...(versionId ? { versionId } : {}), expectedPublishedVersionId: before.publishedVersionId ?? null },
    });
    const site = await this.waitForSynced();
    const number = (await this.versions()).find((v) => v.versionId === site.publishedVersionId)?.number;
    this.output(site, () => this.log(`Rolled back to ${number}: ${siteAddress(site)}`));
  }
}
