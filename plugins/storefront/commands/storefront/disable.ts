import { Flags } from '@oclif/core';
import { siteAddress, StorefrontCommand, type SiteView } from '../../../../src/cli/storefront/storefront-command.js';

export default class StorefrontDisable extends StorefrontCommand<typeof StorefrontDisable> {
  static override summary = "Close the site: a closing notice for 30 days, then it is deleted with its versions (an agent's request waits for an OWNER)";
  static override examples = ['<%= config.bin %> storefront disable --confirm my-shop'];
  static override flags = { confirm: Flags.string({ description: "The site's slug, typed again", required: true }) };

  async run() {
    const site = await this.storeRequest<SiteView & { closing: { deleteAt: string } | null }>('POST', '/v1/storefront/site/disable', {
      body: { confirmSlug: this.flags.confirm },
    });
    this.output(site, () => this.log(`Closed: ${siteAddress(site)} shows a closing notice until ${site.closing?.deleteAt}, then the site is deleted`));
  }
}
