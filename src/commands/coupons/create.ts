import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { benefitText } from '../../cli/coupons.js';
import { UsageError } from '../../cli/usage-error.js';

const list = (value: string | undefined) =>
  value
    ? value
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];

export default class CouponsCreate extends ApiCommand<typeof CouponsCreate> {
  static override summary = 'Create a coupon: granted (MANUAL), downloaded by members (DOWNLOAD), given at sign-up (SIGNUP) or typed (CODE)';
  static override examples = [
    '<%= config.bin %> coupons create --name "첫 구매 10%" --type DOWNLOAD --percent 10 --max-discount 5000 --use-days 30',
    '<%= config.bin %> coupons create --name "봄맞이" --type CODE --code SPRING-2000 --amount 2000 --min-order 30000 --quantity 500',
    '<%= config.bin %> coupons create --name "셔츠 할인" --type MANUAL --amount 3000 --products prd_…,prd_… --stackable --json',
  ];
  static override flags = {
    name: Flags.string({ required: true, description: 'Coupon name buyers see (100 characters)' }),
    type: Flags.string({ required: true, options: ['MANUAL', 'DOWNLOAD', 'SIGNUP', 'CODE'], description: 'How buyers get it' }),
    code: Flags.string({ description: 'The code buyers type (CODE coupons; A–Z, 0–9, hyphens)' }),
    percent: Flags.integer({ min: 1, max: 100, description: 'Percent off', exactlyOne: ['percent', 'amount'] }),
    amount: Flags.integer({ min: 1, description: 'Won off' }),
    'max-discount': Flags.integer({ min: 1, description: 'Cap of a percent discount, in won', dependsOn: ['percent'] }),
    'min-order': Flags.integer({ min: 0, description: 'Least items amount the order needs, in won' }),
    products: Flags.string({ description: 'Only these products (comma-separated ids)', exclusive: ['categories'] }),
    categories: Flags.string({ description: 'Only products in these categories or below (comma-separated ids)' }),
    'download-start': Flags.string({ description: 'DOWNLOAD coupons: downloads open (ISO 8601 instant)' }),
    'download-end': Flags.string({ description: 'DOWNLOAD coupons: downloads close (ISO 8601 instant)' }),
    'use-days': Flags.integer({ min: 1, description: 'A held coupon is valid this many days from issue', exclusive: ['use-end'] }),
    'use-end': Flags.string({ description: 'Every held coupon is valid until this instant (ISO 8601)' }),
    quantity: Flags.integer({ min: 1, description: 'How many may be issued in all' }),
    'per-customer': Flags.integer({ min: 1, max: 100, description: 'How many one buyer may hold (default 1)' }),
    stackable: Flags.boolean({ description: 'May be used together with other coupons' }),
  };

  async run() {
    const f = this.flags;
    const ids = list(f.products ?? f.categories);
    if ((f.products !== undefined || f.categories !== undefined) && ids.length === 0) throw new UsageError('--products/--categories needs at least one id');
    const body = {
      name: f.name,
      issueType: f.type,
      code: f.code,
      benefit: f.percent !== undefined ? { method: 'PERCENT', value: f.percent, maxDiscountAmount: f['max-discount'] } : { method: 'AMOUNT', value: f.amount },
      minOrderAmount: f['min-order'],
      target: f.products ? { kind: 'PRODUCTS', ids } : f.categories ? { kind: 'CATEGORIES', ids } : undefined,
      downloadStart: f['download-start'],
      downloadEnd: f['download-end'],
      useDays: f['use-days'],
      useEnd: f['use-end'],
      totalQuantity: f.quantity,
      perCustomerLimit: f['per-customer'],
      stackable: f.stackable || undefined,
    };
    const coupon = await this.storeRequest('POST', '/v1/coupons', { body: JSON.parse(JSON.stringify(body)) });
    this.output(coupon, () => {
      this.log(`Created ${coupon.couponId} (${coupon.name}, ${benefitText(coupon.benefit)}).`);
      if (coupon.issueType === 'MANUAL') this.log(`Next: svc coupons grant ${coupon.couponId} --customers cus_…`);
      if (coupon.issueType === 'CODE') this.log(`Buyers type ${coupon.code} at checkout.`);
      if (coupon.issueType === 'DOWNLOAD') this.log('Members download it from the storefront (GET /storefront/v1/coupons).');
    });
  }
}
