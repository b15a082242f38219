import { Args } from '@oclif/core';
import { DomainCommand, type DomainView } from '../../../../../src/cli/storefront/domain-command.js';

export default class StorefrontDomainsVerify extends DomainCommand<typeof StorefrontDomainsVerify> {
  static override summary = "Look at a domain's DNS again now (a FAILED domain starts over)";
  static override examples = ['<%= config.bin %> storefront domains verify shop.example.com'];
  static override args = { domain: Args.string({ description: 'hostname or domain id', required: true }) };

  async run() {
    const domain = await this.storeRequest<DomainView>('POST', `/v1/storefront/site/domains/${await this.domainId(this.args.domain)}/verify`);
    this.output(domain, () => {
      this.log(`${domain.hostname}: ${domain.status}${domain.failureCode ? ` (${domain.failureCode})` : ''}`);
      this.printRecords(domain);
    });
  }
}
