import { Args } from '@oclif/core';
import { DomainCommand, type DomainList } from '../../../../../src/cli/storefront/domain-command.js';

export default class StorefrontDomainsRemove extends DomainCommand<typeof StorefrontDomainsRemove> {
  static override summary = 'Remove a custom domain';
  static override examples = ['<%= config.bin %> storefront domains remove shop.example.com'];
  static override args = { domain: Args.string({ description: 'hostname or domain id', required: true }) };

  async run() {
    const list = await this.storeRequest<DomainList>('DELETE', `/v1/storefront/site/domains/${await this.domainId(this.args.domain)}`);
    this.output(list, () => this.printDomains(list));
  }
}
