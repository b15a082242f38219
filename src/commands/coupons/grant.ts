import { Flags } from '@oclif/core';
import { CouponCommand } from '../../cli/coupons.js';

export default class CouponsGrant extends CouponCommand<typeof CouponsGrant> {
  static override summary = 'Give a MANUAL coupon to buyers (up to 100); each buyer succeeds or fails on its own';
  static override examples = [
    '<%= config.bin %> coupons grant cpn_… --customers cus_1,cus_2',
    '<%= config.bin %> coupons grant cpn_… --customers cus_1 --json',
  ];
  static override flags = { customers: Flags.string({ required: true, description: 'Customer ids, comma-separated' }) };

  async run() {
    const customerIds = this.flags.customers
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const result = await this.storeRequest('POST', `${this.couponPath}/grants`, { body: { customerIds } });
    this.output(result, () => {
      this.table(
        [
          ...result.granted.map((g: any) => ({ customerId: g.customerId, result: 'granted', detail: g.couponItem.code })),
          ...result.failed.map((f: any) => ({ customerId: f.customerId, result: f.code, detail: f.message })),
        ],
        ['customerId', 'result', 'detail'],
      );
      this.log(`${result.granted.length} granted, ${result.failed.length} failed`);
    });
    if (result.failed.length) process.exitCode = 1;
  }
}
