import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { UsageError } from '../../cli/usage-error.js';

export default class CategoriesUpdate extends ApiCommand<typeof CategoriesUpdate> {
  static override summary = 'Rename, move, or assign an order flow to a category';
  static override args = { categoryId: Args.string({ description: 'Category id', required: true }) };
  static override flags = {
    name: Flags.string({ description: 'New name' }),
    parent: Flags.string({ description: 'New parent id ("none" for the top level)' }),
    flow: Flags.string({ description: 'Order flow id ("none" to remove)' }),
  };

  async run() {
    const f = this.flags;
    const nullable = (v: string | undefined) => (v === 'none' ? null : v);
    const body = Object.fromEntries(
      Object.entries({ name: f.name, parentId: nullable(f.parent), flowId: nullable(f.flow) }).filter(([, v]) => v !== undefined),
    );
    if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give --name, --parent or --flow');
    const data = await this.storeRequest('PATCH', `/v1/categories/${encodeURIComponent(this.args.categoryId)}`, { body });
    this.output(data, () => this.log(`Updated ${data.name} (${data.categoryId}).`));
  }
}
