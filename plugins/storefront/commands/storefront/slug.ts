import { Args } from '@oclif/core';
import { siteAddress, StorefrontCommand, type SiteView } from '../../../../src/cli/storefront/storefront-command.js';

export default class StorefrontSlug extends StorefrontCommand<typeof StorefrontSlug> {
  static override summary = "Change the site's address (3 per 30 days); the old one redirects here for 90 days";
  static override examples = ['<%= config.bin %> storefront slug my-new-shop'];
  static override args = { slug: Args.string({ description: 'lowercase letters, digits and single hyphens, 3 to 30', required: true }) };

  async run() {
    const site = await this.storeRequest<SiteView & { slugChangesRemaining: number }>('PUT', '/v1/storefront/site/slug', { body: { slug: this.args.slug } });
    this.output(site, () => this.log(`Address ${siteAddress(site)} (${site.slugChangesRemaining} change(s) left in 30 days)`));
  }
}
