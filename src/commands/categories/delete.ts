import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class CategoriesDelete extends ApiCommand<typeof CategoriesDelete> {
  static override summary = 'Delete an empty category (no sub-categories, no products)';
  static override args = { categoryId: Args.string({ description: 'Category id', required: true }) };

  async run() {
    const data = await this.storeRequest('DELETE', `/v1/categories/${encodeURIComponent(this.args.categoryId)}`);
    this.output(data, () => this.log(`Deleted ${data.categoryId}.`));
  }
}
