import { Args } from '@oclif/core';
import { siteAddress, StorefrontCommand } from '../../../../src/cli/storefront/storefront-command.js';

export default class StorefrontPublish extends StorefrontCommand<typeof StorefrontPublish> {
  static override summary = 'Publish a version (v3 or its id); waits until visitors get it';
  static override examples = ['<%= config.bin %> storefront publish v3'];
  static override args = { version: Args.string({ description: 'v3, or a version id', required: true }) };

  async run() {
    const versionId = await this.versionId(this.args.version);
    const before = await this.site();
    await this.storeRequest('POST', `/v1/storefront/site/versions/${versionId}/publish`, {
      body: { expectedPublishedVersionId: before.publishedVersionId ?? null },
    });
    const site = await this.waitForSynced();
    this.output(site, () => this.log(`Published ${this.args.version}: ${siteAddress(site)} (provisioning ${site.provisioning?.status})`));
  }
}
