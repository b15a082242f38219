import { Args } from '@oclif/core';
import { ProductCommand } from './create.js';

export default class ProductsGet extends ProductCommand<typeof ProductsGet> {
  static override summary = 'Show a product with its variants, fulfillment, refund policy and discount';
  static override args = { productId: Args.string({ description: 'Product id or product number', required: true }) };

  async run() {
    const product = await this.storeRequest('GET', await this.productPath(this.args.productId));
    this.output(product, () => this.showProduct(product));
  }
}
