import { Args, Flags } from '@oclif/core';
import { ProductCommand } from './create.js';
import { UsageError } from '../../cli/usage-error.js';

export default class ProductsStock extends ProductCommand<typeof ProductsStock> {
  static override summary = "Set (--set) or move (--adjust) a variant's stock; never below 0";
  static override examples = ['<%= config.bin %> products stock prd_123 --set 40', '<%= config.bin %> products stock prd_123 --variant var_456 --adjust -3'];
  static override args = { productId: Args.string({ description: 'Product id or product number', required: true }) };
  static override flags = {
    variant: Flags.string({ description: 'Variant id (may be left out when the product has a single variant)' }),
    set: Flags.integer({ description: 'New stock', min: 0, exactlyOne: ['set', 'adjust'] }),
    adjust: Flags.integer({ description: 'Signed change, e.g. -3', exactlyOne: ['set', 'adjust'] }),
  };

  async run() {
    const productPath = await this.productPath(this.args.productId);
    let variantId = this.flags.variant;
    if (!variantId) {
      const product = await this.storeRequest('GET', productPath);
      if (product.variants.length !== 1)
        throw new UsageError(`the product has ${product.variants.length} variants: pass --variant (svc products get ${this.args.productId})`);
      variantId = product.variants[0].variantId as string;
    }
    const body = this.flags.set !== undefined ? { stockQuantity: this.flags.set } : { adjustment: this.flags.adjust };
    const data = await this.storeRequest('PATCH', `${productPath}/variants/${encodeURIComponent(variantId)}/stock`, { body });
    this.output(data, () => this.log(`${data.variantId}: stock ${data.stockQuantity} (product ${data.productStatus})`));
  }
}
