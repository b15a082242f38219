import { Args } from '@oclif/core';
import { DomainCommand, type DomainList } from '../../../../../src/cli/storefront/domain-command.js';

export default class StorefrontDomainsPrimary extends DomainCommand<typeof StorefrontDomainsPrimary> {
  static override summary = "Make a connected domain the site's address (`platform` for the default address)";
  static override examples = ['<%= config.bin %> storefront domains primary shop.example.com', '<%= config.bin %> storefront domains primary platform'];
  static override args = { domain: Args.string({ description: 'hostname, domain id, or platform', required: true }) };

  async run() {
    const id = this.args.domain === 'platform' ? 'dom_platform' : await this.domainId(this.args.domain);
    const list = await this.storeRequest<DomainList>('POST', `/v1/storefront/site/domains/${id}/primary`);
    this.output(list, () => this.printDomains(list));
  }
}
