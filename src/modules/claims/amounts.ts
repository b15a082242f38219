/**
 * The money of a cancel, return or exchange, to the won (spec 01 §2.4, §6.2 rule 4). Pure: the preview,
 * the event, the refund record and the gateway cancel all come from one call, so they always agree.
 *
 * Shares of an item are cut by units so that the cuts of all its units add up to the item exactly:
 * `share(total, n)` is the part of `total` that units `done+1 … done+n` carry.
 */
import type { FixedRefundPolicy } from '../orders/index.js';

export interface OrderLine {
  orderItemId: string;
  quantity: number;
  /** Units already canceled, returned or exchanged away before this claim. */
  closedQuantity: number;
  /** What the units cost before discounts (the sheet's amount). */
  amount: number;
  couponDiscountAmount: number;
  /** Shipping group key (null for no-shipping items) and the fee charged to the group on this line. */
  deliveryGroup: string | null;
  deliveryFee: number;
  refundPolicy: FixedRefundPolicy;
  dispatched: boolean;
}

export type ClaimKind = 'CANCEL' | 'RETURN' | 'EXCHANGE';

export interface Ask {
  kind: ClaimKind;
  orderItemId: string;
  quantity: number;
  /** The seller's extra deduction (claim approval). */
  deductAmount?: number;
  /** Shipping the seller charges instead of the policy's (claim approval). */
  deliveryFeeChargeAmount?: number;
}

export interface Amounts {
  quantity: number;
  /** What the buyer paid for the units (their amount less their coupon discount). */
  itemRefundAmount: number;
  /** The units' part of the coupon discount: it comes back with them (the buyer never paid it). */
  couponReturnAmount: number;
  deliveryFeeRefundAmount: number;
  deliveryFeeChargeAmount: number;
  deductAmount: number;
  /**
   * The claim's refund as spec 01 §6.2 rule 4 states it: item + delivery refund, with the delivery charge and
   * the deduction NOT taken off (receivers subtract both); null for an exchange (no refund).
   */
  refundAmount: number | null;
  /**
   * What actually goes back: refundAmount − delivery charge − deduction, never below 0 (0 for an exchange).
   * A seller cancel has no deduction, so this is also ORDER.CANCELED's refundAmount (rule 6).
   */
  netRefundAmount: number;
  /** Points first (while the payment has points not yet given back), the rest in cash. */
  pointRefundAmount: number;
  cashRefundAmount: number;
}

const share = (total: number, quantity: number, done: number, n: number) => Math.floor((total * (done + n)) / quantity) - Math.floor((total * done) / quantity);

/** The shipping policy a group key carries: `[shippingAddressId, deliveryType, deliveryFee, conditionalFreeAmount]`. */
function groupPolicy(key: string) {
  const [, deliveryType, deliveryFee, conditionalFreeAmount] = JSON.parse(key) as [string, string, number, number | null];
  return { deliveryType, deliveryFee, conditionalFreeAmount };
}

export class AmountError extends Error {
  constructor(readonly reason: 'UNKNOWN_ITEM' | 'QUANTITY' | 'DISPATCHED' | 'NOT_DISPATCHED') {
    super(reason);
  }
}

/** The payment's points: how many it used and how many earlier cancels and claims gave back. */
export interface PaymentPoints {
  used: number;
  returned: number;
}

export function claimAmounts(lines: OrderLine[], ask: Ask, points: PaymentPoints = { used: 0, returned: 0 }): Amounts {
  const line = lines.find((l) => l.orderItemId === ask.orderItemId);
  if (!line) throw new AmountError('UNKNOWN_ITEM');
  const open = line.quantity - line.closedQuantity;
  if (!Number.isInteger(ask.quantity) || ask.quantity < 1 || ask.quantity > open) throw new AmountError('QUANTITY');
  if (ask.kind === 'CANCEL' && line.dispatched) throw new AmountError('DISPATCHED');
  if (ask.kind !== 'CANCEL' && !line.dispatched) throw new AmountError('NOT_DISPATCHED');

  const cut = (total: number) => share(total, line.quantity, line.closedQuantity, ask.quantity);
  const gross = cut(line.amount);
  const couponReturnAmount = cut(line.couponDiscountAmount);
  const itemRefundAmount = ask.kind === 'EXCHANGE' ? 0 : gross - couponReturnAmount;

  // The shipping group after this claim: what stays in it, and what it was charged.
  const group = line.deliveryGroup === null ? [] : lines.filter((l) => l.deliveryGroup === line.deliveryGroup);
  const openAfter = (l: OrderLine) => l.quantity - l.closedQuantity - (l === line && ask.kind !== 'EXCHANGE' ? ask.quantity : 0);
  const unitsAfter = group.reduce((n, l) => n + openAfter(l), 0);
  const amountAfter = group.reduce((n, l) => n + (l.amount - share(l.amount, l.quantity, 0, l.quantity - openAfter(l))), 0);
  const groupFee = group.reduce((n, l) => n + l.deliveryFee, 0);

  let deliveryFeeRefundAmount = 0;
  let charge = 0;
  if (ask.kind === 'CANCEL') {
    if (group.length && unitsAfter === 0 && line.refundPolicy.preShipmentDeliveryFeeRefund) deliveryFeeRefundAmount = groupFee;
  } else {
    charge += (ask.kind === 'RETURN' ? line.refundPolicy.returnDeliveryFee : line.refundPolicy.exchangeDeliveryFee) ?? 0;
  }
  // Free shipping that the remaining items no longer earn is charged back (only while some items stay).
  if (line.deliveryGroup !== null && ask.kind !== 'EXCHANGE' && unitsAfter > 0) {
    const policy = groupPolicy(line.deliveryGroup);
    const wasFree = groupFee === 0 && policy.deliveryType === 'CONDITIONAL_FREE' && policy.conditionalFreeAmount !== null;
    if (wasFree && amountAfter < policy.conditionalFreeAmount!) charge += policy.deliveryFee;
  }
  const deliveryFeeChargeAmount = ask.deliveryFeeChargeAmount ?? charge;
  const deductAmount = ask.deductAmount ?? 0;

  if (ask.kind === 'EXCHANGE') {
    return {
      quantity: ask.quantity,
      itemRefundAmount: 0,
      couponReturnAmount: 0,
      deliveryFeeRefundAmount: 0,
      deliveryFeeChargeAmount,
      deductAmount,
      refundAmount: null,
      netRefundAmount: 0,
      pointRefundAmount: 0,
      cashRefundAmount: 0,
    };
  }
  const refundAmount = itemRefundAmount + deliveryFeeRefundAmount;
  const netRefundAmount = Math.max(0, refundAmount - deliveryFeeChargeAmount - deductAmount);
  // Points before cash, at the payment's level: every refund gives points back until the payment's are all back,
  // so the cash refunds of a whole order add up to the cash it paid, whatever the order of the claims.
  const pointRefundAmount = Math.min(netRefundAmount, points.used - points.returned);
  return {
    quantity: ask.quantity,
    itemRefundAmount,
    couponReturnAmount,
    deliveryFeeRefundAmount,
    deliveryFeeChargeAmount,
    deductAmount,
    refundAmount,
    netRefundAmount,
    pointRefundAmount,
    cashRefundAmount: netRefundAmount - pointRefundAmount,
  };
}
