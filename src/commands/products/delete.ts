import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class ProductsDelete extends ApiCommand<typeof ProductsDelete> {
  static override summary = 'Delete a product (refused when an order holds one of its variants: end its sale instead)';
  static override args = { productId: Args.string({ description: 'Product id', required: true }) };

  async run() {
    const data = await this.storeRequest('DELETE', `/v1/products/${encodeURIComponent(this.args.productId)}`);
    this.output(data, () => this.log(`Deleted ${data.productId}.`));
  }
}
