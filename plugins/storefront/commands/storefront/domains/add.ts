import { Args } from '@oclif/core';
import { DomainCommand, type DomainView } from '../../../../../src/cli/storefront/domain-command.js';

export default class StorefrontDomainsAdd extends DomainCommand<typeof StorefrontDomainsAdd> {
  static override summary = 'Add a custom domain and print the two DNS records to set';
  static override examples = ['<%= config.bin %> storefront domains add shop.example.com'];
  static override args = { hostname: Args.string({ description: 'e.g. shop.example.com (a sub-domain such as www is advised)', required: true }) };

  async run() {
    const domain = await this.storeRequest<DomainView>('POST', '/v1/storefront/site/domains', { body: { hostname: this.args.hostname } });
    this.output(domain, () => {
      this.log(`Added ${domain.hostname} (${domain.domainId}): ${domain.status}`);
      this.printRecords(domain);
      this.log('Watch it with: svc storefront domains list');
    });
  }
}
