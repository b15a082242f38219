import { CouponCommand } from '../../cli/coupons.js';

export default class CouponsGet extends CouponCommand<typeof CouponsGet> {
  static override summary = 'Show a coupon: its rule, status and how many were issued and used';
  static override examples = ['<%= config.bin %> coupons get cpn_…', '<%= config.bin %> coupons get cpn_… --json'];

  async run() {
    const coupon = await this.storeRequest('GET', this.couponPath);
    this.output(coupon, () => this.printCoupon(coupon));
  }
}
