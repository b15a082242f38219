import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { pageFlags, pageSummary } from '../../cli/paging.js';

export default class OptionSetsList extends ApiCommand<typeof OptionSetsList> {
  static override summary = 'List saved option sets';
  static override examples = [
    '<%= config.bin %> option-sets list --keyword 사이즈',
    '<%= config.bin %> option-sets list --composition addon --sort name.asc --json',
  ];
  static override flags = {
    ...pageFlags(200),
    keyword: Flags.string({ description: 'Name contains (case-insensitive)' }),
    composition: Flags.option({ options: ['combination', 'addon', 'customInput'] as const, description: 'Only sets holding this kind of part' })(),
    sort: Flags.option({ options: ['updatedAt.desc', 'name.asc', 'importedProductCount.desc'] as const, description: 'Order (default updatedAt.desc)' })(),
  };

  async run() {
    const f = this.flags;
    const data = await this.storeRequest('GET', '/v1/saved-option-sets', {
      query: { page: f.page, size: f.size, keyword: f.keyword, composition: f.composition, sort: f.sort },
    });
    this.outputList(data, () => {
      this.table(
        data.contents.map((o: any) => ({ ...o, groups: o.groups.map((g: any) => g.name).join(', '), customInputs: o.customInputs.length })),
        ['optionSetId', 'name', 'groups', 'customInputs', 'updatedAt'],
      );
      this.log(pageSummary(data, 'option sets'));
    });
  }
}
