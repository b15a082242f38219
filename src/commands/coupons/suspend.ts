import { CouponCommand } from '../../cli/coupons.js';

export default class CouponsSuspend extends CouponCommand<typeof CouponsSuspend> {
  static override summary = 'Stop a coupon: no downloads, grants or new uses until resumed';
  static override examples = ['<%= config.bin %> coupons suspend cpn_…'];

  async run() {
    const coupon = await this.storeRequest('POST', `${this.couponPath}/suspend`);
    this.output(coupon, () => this.printCoupon(coupon));
  }
}
