import { CouponCommand } from '../../cli/coupons.js';

export default class CouponsResume extends CouponCommand<typeof CouponsResume> {
  static override summary = 'Resume a suspended coupon';
  static override examples = ['<%= config.bin %> coupons resume cpn_…'];

  async run() {
    const coupon = await this.storeRequest('POST', `${this.couponPath}/resume`);
    this.output(coupon, () => this.printCoupon(coupon));
  }
}
