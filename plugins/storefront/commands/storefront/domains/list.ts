import { DomainCommand } from '../../../../../src/cli/storefront/domain-command.js';

export default class StorefrontDomainsList extends DomainCommand<typeof StorefrontDomainsList> {
  static override summary = "The site's addresses: the default one (PLATFORM) and custom domains with their status";
  static override examples = ['<%= config.bin %> storefront domains list', '<%= config.bin %> storefront domains list --json'];

  async run() {
    const list = await this.domains();
    this.output(list, () => {
      this.printDomains(list);
      for (const d of list.contents)
        if (d.status === 'PENDING_DNS') {
          this.log(`\n${d.hostname}:`);
          this.printRecords(d);
        }
    });
  }
}
