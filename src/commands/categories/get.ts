import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class CategoriesGet extends ApiCommand<typeof CategoriesGet> {
  static override summary = 'Show a category';
  static override args = { categoryId: Args.string({ description: 'Category id', required: true }) };

  async run() {
    const data = await this.storeRequest('GET', `/v1/categories/${encodeURIComponent(this.args.categoryId)}`);
    this.output(data, () => this.table([data], ['categoryId', 'name', 'parentId', 'flowId', 'leaf']));
  }
}
