import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class ProductsStatus extends ApiCommand<typeof ProductsStatus> {
  static override summary = 'Set one sale status on up to 100 products; each succeeds or fails on its own';
  static override examples = ['<%= config.bin %> products status --set SUSPENDED prd_1 prd_2 prd_3'];
  static override strict = false;
  static override args = { productIds: Args.string({ description: 'Product ids', required: true }) };
  static override flags = {
    set: Flags.option({ options: ['ON_SALE', 'SOLD_OUT', 'SUSPENDED', 'ENDED'] as const, description: 'The status', required: true })(),
  };

  async run() {
    const { argv } = await this.parse(ProductsStatus);
    const data = await this.storeRequest('POST', '/v1/products/bulk/status', { body: { productIds: argv, status: this.flags.set } });
    this.output(data, () => {
      this.log(`${data.succeeded.length} set to ${this.flags.set}, ${data.failed.length} failed`);
      for (const f of data.failed) this.logToStderr(`  ✗ ${f.productId}: ${f.code} ${f.message}`);
    });
    // Not this.exit(1): the base class reads an exit thrown from run() as a usage error (2).
    if (data.failed.length) process.exitCode = 1;
  }
}
