import { Args, Flags } from '@oclif/core';
import { ProductCommand } from './create.js';
import { UsageError } from '../../cli/usage-error.js';

export default class ProductsCalendar extends ProductCommand<typeof ProductsCalendar> {
  static override summary = 'Read, or with --stock / --price write, the dated stock and prices of a DATED product';
  static override examples = [
    '<%= config.bin %> products calendar prd_123 --from 2026-12-01 --to 2026-12-31',
    '<%= config.bin %> products calendar prd_123 --from 2026-12-01 --to 2027-02-28 --stock 2 --days 5,6',
    '<%= config.bin %> products calendar prd_123 --variant var_1 --from 2026-12-24 --to 2026-12-25 --price 180000',
    '<%= config.bin %> products calendar prd_123 --from 2026-12-24 --to 2026-12-25 --reset-price',
  ];
  static override args = { productId: Args.string({ description: 'Product id or product number', required: true }) };
  static override flags = {
    from: Flags.string({ description: 'First day, YYYY-MM-DD (read default: today)' }),
    to: Flags.string({ description: 'Last day, YYYY-MM-DD, inclusive (at most 400 days)' }),
    variant: Flags.string({ description: 'Variant id to write (repeatable; default: every variant)', multiple: true }),
    stock: Flags.integer({ description: 'Stock per day to write', min: 0 }),
    price: Flags.integer({ description: 'Price per day to write', exclusive: ['reset-price'] }),
    'reset-price': Flags.boolean({ description: 'Reset the days to salePrice plus the add-on' }),
    days: Flags.string({ description: 'Only these weekdays, comma-separated (0 = Sunday … 6 = Saturday)' }),
  };

  async run() {
    const f = this.flags;
    const productPath = await this.productPath(this.args.productId);
    const path = `${productPath}/calendar`;
    const writing = f.stock !== undefined || f.price !== undefined || f['reset-price'];
    if (!writing) {
      const data = await this.storeRequest('GET', path, { query: { from: f.from, to: f.to } });
      return this.output(data, () => {
        for (const v of data.variants) {
          this.log(`${v.variantId} ${v.optionValues.join(' / ')}`);
          this.table(v.days, ['date', 'stock', 'price', 'priceSet'], { money: ['price'] });
        }
      });
    }
    if (!f.from || !f.to) throw new UsageError('writing needs --from and --to');
    const variantIds = f.variant ?? (await this.storeRequest('GET', productPath)).variants.map((v: any) => v.variantId);
    const body: Record<string, unknown> = { variantIds, from: f.from, to: f.to };
    if (f.stock !== undefined) body.stock = f.stock;
    if (f.price !== undefined) body.price = f.price;
    if (f['reset-price']) body.price = null;
    if (f.days) body.daysOfWeek = f.days.split(',').map((d) => Number(d.trim()));
    const data = await this.storeRequest('PUT', path, { body });
    this.output(data, () => this.log(`Updated ${data.updatedDays} days × ${data.variantIds.length} variants (${data.from}~${data.to}).`));
  }
}
