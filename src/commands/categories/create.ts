import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class CategoriesCreate extends ApiCommand<typeof CategoriesCreate> {
  static override summary = 'Create a category, optionally under a parent';
  static override examples = ['<%= config.bin %> categories create --name 의류', '<%= config.bin %> categories create --name 상의 --parent cat_123'];
  static override flags = {
    name: Flags.string({ description: 'Name (prompted for at a terminal)' }),
    parent: Flags.string({ description: 'Parent category id' }),
    flow: Flags.string({ description: 'Order flow id (lowest-level categories only)' }),
  };

  async run() {
    const name = this.flags.name ?? (await this.ask('name', 'Category name'));
    const data = await this.storeRequest('POST', '/v1/categories', { body: { name, parentId: this.flags.parent, flowId: this.flags.flow } });
    this.output(data, () => this.log(`Created ${data.name} (${data.categoryId}).`));
  }
}
