import { Args } from '@oclif/core';
import { ProductCommand } from '../products/create.js';

export default class OptionSetsImport extends ProductCommand<typeof OptionSetsImport> {
  static override summary = "Copy a saved option set's add-on groups and custom inputs (and its option axes, before any sale) into a product";
  static override examples = ['<%= config.bin %> option-sets import opts_123 prd_456', '<%= config.bin %> option-sets import opts_123 12 --json'];
  static override args = {
    optionSetId: Args.string({ description: 'Option set id', required: true }),
    product: Args.string({ description: 'Product id or product number', required: true }),
  };

  async run() {
    const path = `${await this.productPath(this.args.product)}/option-sets/${encodeURIComponent(this.args.optionSetId)}/import`;
    const product = await this.storeRequest('POST', path);
    this.output(product, () => this.showProduct(product));
  }
}
