import { Args } from '@oclif/core';
import { ProductCommand } from './create.js';

export default class ProductsDelete extends ProductCommand<typeof ProductsDelete> {
  static override summary = 'Delete a product (refused when an order holds one of its variants: end its sale instead)';
  static override args = { productId: Args.string({ description: 'Product id or product number', required: true }) };

  async run() {
    const data = await this.storeRequest('DELETE', await this.productPath(this.args.productId));
    this.output(data, () => this.log(`Deleted ${data.productId}.`));
  }
}
