import { Args, Flags } from '@oclif/core';
import { UsageError } from '../../cli/usage-error.js';
import { ProductCommand, productFlags } from './create.js';

export default class ProductsUpdate extends ProductCommand<typeof ProductsUpdate> {
  static override summary = 'Change a product: only given fields (PATCH), or replace it whole with --replace (PUT)';
  static override examples = [
    '<%= config.bin %> products update prd_123 --name "새 이름" --status SUSPENDED',
    '<%= config.bin %> products update prd_123 --replace --data @product.json',
  ];
  static override args = { productId: Args.string({ description: 'Product id or product number', required: true }) };
  static override flags = {
    ...productFlags,
    replace: Flags.boolean({ description: 'Full replacement (PUT): omitted fields take their defaults, an omitted refundPolicy is erased' }),
    'if-match': Flags.string({ description: 'Version read earlier (ETag); refused with PRODUCT_CHANGED if another change of type came first' }),
  };

  async run() {
    const body = this.productBody(this.flags);
    if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give flags or --data');
    const headers = this.flags['if-match'] ? { 'if-match': this.flags['if-match'] } : undefined;
    const product = await this.storeRequest(this.flags.replace ? 'PUT' : 'PATCH', await this.productPath(this.args.productId), { body, headers });
    this.output(product, () => this.showProduct(product));
  }
}
