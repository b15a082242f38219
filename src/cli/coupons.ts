import { Args, type Command } from '@oclif/core';
import { ApiCommand } from './api-command.js';

/** A coupon's benefit for people: `20% (최대 5,000원)` or `2,000원`. */
export const benefitText = (b: { method: string; value: number; maxDiscountAmount: number | null }) =>
  b.method === 'PERCENT'
    ? `${b.value}%${b.maxDiscountAmount ? ` (최대 ${b.maxDiscountAmount.toLocaleString('ko-KR')}원)` : ''}`
    : `${b.value.toLocaleString('ko-KR')}원`;

/** Base of the `svc coupons` commands that act on one coupon. */
export abstract class CouponCommand<T extends typeof Command> extends ApiCommand<T> {
  static override args = { couponId: Args.string({ required: true, description: 'Coupon id (cpn_…)' }) };

  protected get couponPath() {
    return `/v1/coupons/${encodeURIComponent((this.args as { couponId: string }).couponId)}`;
  }

  protected printCoupon(c: any) {
    this.log(`${c.couponId} · ${c.name} · ${c.issueType}${c.code ? ` ${c.code}` : ''} · ${benefitText(c.benefit)} · ${c.status}`);
    this.log(
      `issued ${c.issuedCount}${c.totalQuantity ? `/${c.totalQuantity}` : ''} · used ${c.usedCount} · min order ${c.minOrderAmount.toLocaleString('ko-KR')}원 · target ${c.target.kind}${c.target.ids.length ? ` ${c.target.ids.join(',')}` : ''}${c.stackable ? ' · stackable' : ''}`,
    );
  }
}
