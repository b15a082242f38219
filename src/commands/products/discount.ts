import { Args, Flags } from '@oclif/core';
import { won } from '../../cli/format.js';
import { ProductCommand } from './create.js';

const setFlags = ['method', 'value', 'start', 'end'];

export default class ProductsDiscount extends ProductCommand<typeof ProductsDiscount> {
  static override summary = "Show, set or clear a product's discount (basis: salePrice)";
  static override examples = [
    '<%= config.bin %> products discount prd_123',
    '<%= config.bin %> products discount prd_123 --method PERCENT --value 10 --start 2026-12-01 --end 2026-12-31',
    '<%= config.bin %> products discount prd_123 --clear',
  ];
  static override args = { productId: Args.string({ description: 'Product id or product number', required: true }) };
  static override flags = {
    method: Flags.option({ options: ['PERCENT', 'AMOUNT'] as const, description: 'Percentage or amount off', dependsOn: setFlags, exclusive: ['clear'] })(),
    value: Flags.integer({ description: 'Percent (1–99) or KRW', dependsOn: setFlags }),
    start: Flags.string({ description: 'First day, YYYY-MM-DD (Korean date)', dependsOn: setFlags }),
    end: Flags.string({ description: 'Last day, YYYY-MM-DD', dependsOn: setFlags }),
    clear: Flags.boolean({ description: 'Remove the discount', exclusive: setFlags }),
  };

  async run() {
    const f = this.flags;
    const path = `${await this.productPath(this.args.productId)}/discount`;
    if (f.clear) {
      const data = await this.storeRequest('DELETE', path);
      return this.output(data, () => this.log('Discount cleared.'));
    }
    const data = f.method
      ? await this.storeRequest('PUT', path, { body: { method: f.method, value: f.value, startDate: f.start, endDate: f.end } })
      : await this.storeRequest('GET', path);
    this.output(data, () =>
      this.log(
        `${data.method} ${data.method === 'PERCENT' ? `${data.value}%` : won(data.value)} · ${data.startDate}~${data.endDate} · 할인가 ${won(data.discountedPrice)}${data.active ? ' (진행 중)' : ''}`,
      ),
    );
  }
}
