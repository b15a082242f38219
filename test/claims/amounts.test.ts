/**
 * The claim amounts module (src/modules/claims/amounts.ts): a table of hand-computed cases and properties
 * over random orders — the cuts of an item's units add up to the item, money never goes below zero,
 * points come back before cash, and a group's shipping is refunded once, with its last unit.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { AmountError, claimAmounts, type Ask, type OrderLine, type PaymentPoints } from '../../src/modules/claims/amounts.js';

const GROUP = JSON.stringify(['addr', 'PAID', 3000, null]);
const FREE_OVER_50K = JSON.stringify(['addr', 'CONDITIONAL_FREE', 3000, 50000]);
const policy = { returnDeliveryFee: 3000, exchangeDeliveryFee: 6000, preShipmentDeliveryFeeRefund: true, override: null };

const line = (id: string, over: Partial<OrderLine> = {}): OrderLine => ({
  orderItemId: id,
  quantity: 1,
  closedQuantity: 0,
  amount: 10000,
  couponDiscountAmount: 0,
  deliveryGroup: GROUP,
  deliveryFee: 0,
  refundPolicy: policy,
  dispatched: false,
  ...over,
});

const cases: [string, OrderLine[], Ask, Partial<ReturnType<typeof claimAmounts>>, PaymentPoints?][] = [
  [
    'one unit of three, no discounts',
    [line('a', { quantity: 3, amount: 30000, deliveryFee: 3000 })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { itemRefundAmount: 10000, deliveryFeeRefundAmount: 0, refundAmount: 10000, cashRefundAmount: 10000 },
  ],
  [
    'the last units take the rounding remainder',
    [line('a', { quantity: 3, closedQuantity: 2, amount: 10000, deliveryFee: 3000 })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { itemRefundAmount: 3334, deliveryFeeRefundAmount: 3000, refundAmount: 6334 },
  ],
  [
    'the first unit of three of 10,000 is 3,333',
    [line('a', { quantity: 3, amount: 10000, deliveryFee: 3000 })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { itemRefundAmount: 3333, refundAmount: 3333 },
  ],
  [
    'the group keeps its fee while another item stays',
    [line('a', { deliveryFee: 3000 }), line('b')],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { deliveryFeeRefundAmount: 0, refundAmount: 10000 },
  ],
  [
    'the last item of the group brings its fee back',
    [line('a', { deliveryFee: 3000, closedQuantity: 1 }), line('b')],
    { kind: 'CANCEL', orderItemId: 'b', quantity: 1 },
    { deliveryFeeRefundAmount: 3000, refundAmount: 13000 },
  ],
  [
    'no pre-shipment fee refund when the policy says so',
    [line('a', { deliveryFee: 3000, refundPolicy: { ...policy, preShipmentDeliveryFeeRefund: false } })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { deliveryFeeRefundAmount: 0, refundAmount: 10000 },
  ],
  [
    'another group is untouched',
    [line('a', { deliveryFee: 3000 }), line('b', { deliveryGroup: JSON.stringify(['other', 'PAID', 2500, null]), deliveryFee: 2500 })],
    { kind: 'CANCEL', orderItemId: 'b', quantity: 1 },
    { deliveryFeeRefundAmount: 2500, refundAmount: 12500 },
  ],
  [
    'no-shipping items have no shipping',
    [line('a', { deliveryGroup: null })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { deliveryFeeRefundAmount: 0, deliveryFeeChargeAmount: 0, refundAmount: 10000 },
  ],
  [
    'coupon discount comes back with the item, not as money',
    [line('a', { couponDiscountAmount: 2000, deliveryFee: 3000 }), line('b')],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { itemRefundAmount: 8000, couponReturnAmount: 2000, refundAmount: 8000 },
  ],
  [
    'points first, then cash',
    [line('a', { deliveryFee: 3000 }), line('b')],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { refundAmount: 10000, pointRefundAmount: 3000, cashRefundAmount: 7000 },
    { used: 3000, returned: 0 },
  ],
  [
    'points already given back by an earlier cancel: cash',
    [line('a', { deliveryFee: 3000 }), line('b')],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { refundAmount: 10000, pointRefundAmount: 1000, cashRefundAmount: 9000 },
    { used: 3000, returned: 2000 },
  ],
  [
    'points, coupon and cash on two of four units',
    [line('a', { quantity: 4, amount: 40000, couponDiscountAmount: 4000, deliveryFee: 3000 })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 2 },
    { itemRefundAmount: 18000, couponReturnAmount: 2000, pointRefundAmount: 8000, cashRefundAmount: 10000 },
    { used: 8000, returned: 0 },
  ],
  [
    'a return charges the policy return shipping',
    [line('a', { dispatched: true })],
    { kind: 'RETURN', orderItemId: 'a', quantity: 1 },
    { deliveryFeeChargeAmount: 3000, refundAmount: 10000, netRefundAmount: 7000 },
  ],
  [
    'a return with a seller deduction',
    [line('a', { dispatched: true })],
    { kind: 'RETURN', orderItemId: 'a', quantity: 1, deductAmount: 1500 },
    { deliveryFeeChargeAmount: 3000, deductAmount: 1500, refundAmount: 10000, netRefundAmount: 5500 },
  ],
  [
    'the seller waives return shipping',
    [line('a', { dispatched: true })],
    { kind: 'RETURN', orderItemId: 'a', quantity: 1, deliveryFeeChargeAmount: 0 },
    { deliveryFeeChargeAmount: 0, refundAmount: 10000, netRefundAmount: 10000 },
  ],
  [
    'charges never push the refund below zero',
    [line('a', { amount: 2000, dispatched: true })],
    { kind: 'RETURN', orderItemId: 'a', quantity: 1 },
    { refundAmount: 2000, netRefundAmount: 0, cashRefundAmount: 0 },
  ],
  [
    'an exchange has no refund and charges exchange shipping',
    [line('a', { dispatched: true })],
    { kind: 'EXCHANGE', orderItemId: 'a', quantity: 1 },
    { refundAmount: null, deliveryFeeChargeAmount: 6000, itemRefundAmount: 0 },
  ],
  [
    'free shipping lost: the shortfall is charged on a cancel',
    [line('a', { amount: 30000, deliveryGroup: FREE_OVER_50K }), line('b', { amount: 30000, deliveryGroup: FREE_OVER_50K })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { deliveryFeeChargeAmount: 3000, refundAmount: 30000, netRefundAmount: 27000 },
  ],
  [
    'free shipping kept: nothing charged',
    [line('a', { amount: 30000, deliveryGroup: FREE_OVER_50K }), line('b', { amount: 60000, deliveryGroup: FREE_OVER_50K })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { deliveryFeeChargeAmount: 0, refundAmount: 30000 },
  ],
  [
    'free shipping, everything canceled: nothing charged, nothing refunded',
    [line('a', { amount: 60000, deliveryGroup: FREE_OVER_50K })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { deliveryFeeChargeAmount: 0, deliveryFeeRefundAmount: 0, refundAmount: 60000 },
  ],
  [
    'a return below the free-shipping line: return fee and shortfall',
    [
      line('a', { amount: 30000, deliveryGroup: FREE_OVER_50K, dispatched: true }),
      line('b', { amount: 30000, deliveryGroup: FREE_OVER_50K, dispatched: true }),
    ],
    { kind: 'RETURN', orderItemId: 'a', quantity: 1 },
    { deliveryFeeChargeAmount: 6000, refundAmount: 30000, netRefundAmount: 24000 },
  ],
  [
    'mixed refund policies in one order: each item its own',
    [line('a', { dispatched: true, refundPolicy: { ...policy, returnDeliveryFee: 5000 } }), line('b', { dispatched: true })],
    { kind: 'RETURN', orderItemId: 'b', quantity: 1 },
    { deliveryFeeChargeAmount: 3000, refundAmount: 10000, netRefundAmount: 7000 },
  ],
  [
    'a product without its own return fee (null) charges nothing',
    [line('a', { dispatched: true, refundPolicy: { ...policy, returnDeliveryFee: null } })],
    { kind: 'RETURN', orderItemId: 'a', quantity: 1 },
    { deliveryFeeChargeAmount: 0, refundAmount: 10000 },
  ],
  [
    'points are capped by what comes back',
    [line('a', { amount: 5000, dispatched: true })],
    { kind: 'RETURN', orderItemId: 'a', quantity: 1 },
    { refundAmount: 5000, netRefundAmount: 2000, pointRefundAmount: 2000, cashRefundAmount: 0 },
    { used: 5000, returned: 0 },
  ],
  [
    'partial quantities of a stay-like item: 2 of 2 nights-units',
    [line('a', { quantity: 2, amount: 240000, deliveryGroup: null })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 2 },
    { itemRefundAmount: 240000, refundAmount: 240000 },
  ],
  [
    'exchange of one of three units',
    [line('a', { quantity: 3, amount: 30000, dispatched: true })],
    { kind: 'EXCHANGE', orderItemId: 'a', quantity: 1 },
    { refundAmount: null, deliveryFeeChargeAmount: 6000 },
  ],
  [
    'coupon on three units: 1,000 over 3 rounds down then up',
    [line('a', { quantity: 3, amount: 30000, couponDiscountAmount: 1000, deliveryFee: 3000 })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { couponReturnAmount: 333, itemRefundAmount: 9667 },
  ],
  [
    'second unit of the coupon cut',
    [line('a', { quantity: 3, closedQuantity: 1, amount: 30000, couponDiscountAmount: 1000, deliveryFee: 3000 })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { couponReturnAmount: 333, itemRefundAmount: 9667 },
  ],
  [
    'third unit takes the coupon remainder and the fee',
    [line('a', { quantity: 3, closedQuantity: 2, amount: 30000, couponDiscountAmount: 1000, deliveryFee: 3000 })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { couponReturnAmount: 334, itemRefundAmount: 9666, deliveryFeeRefundAmount: 3000, refundAmount: 12666 },
  ],
  [
    'deduction larger than the item',
    [line('a', { dispatched: true })],
    { kind: 'RETURN', orderItemId: 'a', quantity: 1, deductAmount: 20000 },
    { refundAmount: 10000, netRefundAmount: 0 },
  ],
  [
    'points, coupon and shipping refund together',
    [line('a', { amount: 20000, couponDiscountAmount: 2000, deliveryFee: 3000 })],
    { kind: 'CANCEL', orderItemId: 'a', quantity: 1 },
    { itemRefundAmount: 18000, deliveryFeeRefundAmount: 3000, refundAmount: 21000, pointRefundAmount: 5000, cashRefundAmount: 16000 },
    { used: 5000, returned: 0 },
  ],
];

test(`table: ${cases.length} hand-computed cases`, () => {
  for (const [name, lines, ask, expected, points] of cases) {
    const got = claimAmounts(lines, ask, points);
    for (const [key, value] of Object.entries(expected)) assert.equal((got as any)[key], value, `${name}: ${key}`);
    // Spec 01 §6.2 rule 4: refundAmount keeps charge and deduction in; subtracting both gives what goes back.
    if (got.refundAmount !== null)
      assert.is(got.netRefundAmount, Math.max(0, got.refundAmount - got.deliveryFeeChargeAmount - got.deductAmount), `${name}: reconstructed`);
    assert.is(got.pointRefundAmount + got.cashRefundAmount, got.netRefundAmount, name);
  }
});

test('refusals: unknown item, quantity out of range, cancel after dispatch, return before it', () => {
  const reason = (lines: OrderLine[], ask: Ask) => {
    try {
      claimAmounts(lines, ask);
      return null;
    } catch (error) {
      return (error as AmountError).reason;
    }
  };
  assert.is(reason([line('a')], { kind: 'CANCEL', orderItemId: 'x', quantity: 1 }), 'UNKNOWN_ITEM');
  assert.is(reason([line('a', { quantity: 2, closedQuantity: 1 })], { kind: 'CANCEL', orderItemId: 'a', quantity: 2 }), 'QUANTITY');
  assert.is(reason([line('a')], { kind: 'CANCEL', orderItemId: 'a', quantity: 0 }), 'QUANTITY');
  assert.is(reason([line('a', { dispatched: true })], { kind: 'CANCEL', orderItemId: 'a', quantity: 1 }), 'DISPATCHED');
  assert.is(reason([line('a')], { kind: 'RETURN', orderItemId: 'a', quantity: 1 }), 'NOT_DISPATCHED');
});

/** A random order: up to 4 items in up to 2 shipping groups, with coupons and points spread like checkout does. */
const orderArb = fc.array(
  fc.record({
    quantity: fc.integer({ min: 1, max: 5 }),
    unit: fc.integer({ min: 100, max: 50000 }),
    coupon: fc.integer({ min: 0, max: 100 }),
    points: fc.integer({ min: 0, max: 100 }),
    group: fc.integer({ min: 0, max: 1 }),
    cuts: fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 5 }),
  }),
  { minLength: 1, maxLength: 4 },
);

test('properties: canceling every unit in any cuts refunds exactly what was paid, its points all and first, each group fee once, never negative', () => {
  fc.assert(
    fc.property(orderArb, (spec) => {
      const lines: OrderLine[] = spec.map((s, i) => {
        const amount = s.quantity * s.unit;
        return line(`i${i}`, {
          quantity: s.quantity,
          amount,
          couponDiscountAmount: Math.floor((amount * s.coupon) / 200),
          deliveryGroup: JSON.stringify([`g${s.group}`, 'PAID', 3000, null]),
        });
      });
      for (const group of new Set(lines.map((l) => l.deliveryGroup))) lines.find((l) => l.deliveryGroup === group)!.deliveryFee = 3000;
      const paid = lines.reduce((n, l) => n + l.amount - l.couponDiscountAmount + l.deliveryFee, 0);
      const used = Math.floor((paid * spec[0].points) / 100);
      let refunded = 0;
      let points = 0;
      let fees = 0;
      spec.forEach((s, i) => {
        const l = lines[i];
        for (const cut of [...s.cuts, l.quantity]) {
          const quantity = Math.min(cut, l.quantity - l.closedQuantity);
          if (quantity === 0) break;
          const a = claimAmounts(lines, { kind: 'CANCEL', orderItemId: l.orderItemId, quantity }, { used, returned: points });
          assert.ok(a.netRefundAmount >= 0 && a.cashRefundAmount >= 0 && a.pointRefundAmount >= 0);
          assert.is(a.pointRefundAmount + a.cashRefundAmount, a.netRefundAmount);
          refunded += a.netRefundAmount;
          points += a.pointRefundAmount;
          fees += a.deliveryFeeRefundAmount;
          l.closedQuantity += quantity;
        }
      });
      assert.is(refunded, paid);
      assert.is(points, used);
      assert.is(fees, 3000 * new Set(lines.map((l) => l.deliveryGroup)).size);
    }),
    { numRuns: 300 },
  );
});

test.run();
