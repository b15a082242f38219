import type { StoreSettings } from '../stores/index.js';
import type { OrderAmounts } from '../orders/index.js';
import type { SheetItem } from './schema.js';

/**
 * Remote delivery areas by 5-digit postal code: Jeju, then the island and mountain areas carriers charge
 * extra for (the common carrier list, by range).
 */
const JEJU: [number, number][] = [[63000, 63644]];
const ISLANDS: [number, number][] = [
  [22386, 22388],
  [23004, 23010],
  [23100, 23116],
  [23124, 23136], // 인천 옹진·강화 섬
  [32133, 32133],
  [33411, 33411], // 충남 섬
  [40200, 40240], // 경북 울릉
  [52570, 52571],
  [53031, 53033],
  [53089, 53104], // 경남 통영·사천 섬
  [54000, 54000],
  [56347, 56349], // 전북 군산·부안 섬
  [57068, 57069],
  [58760, 58762],
  [58800, 58866],
  [58953, 58958],
  [59102, 59103],
  [59106, 59106],
  [59127, 59127],
  [59129, 59129],
  [59137, 59166],
  [59650, 59650],
  [59766, 59766],
  [59781, 59790], // 전남 섬
];
const within = (ranges: [number, number][], zip: number) => ranges.some(([a, b]) => zip >= a && zip <= b);

export type RemoteArea = { kind: 'JEJU' | 'ISLAND'; label: string } | null;

export function remoteAreaOf(zipCode: string | null): RemoteArea {
  if (!zipCode) return null;
  const zip = Number(zipCode);
  if (within(JEJU, zip)) return { kind: 'JEJU', label: '제주' };
  if (within(ISLANDS, zip)) return { kind: 'ISLAND', label: '도서산간' };
  return null;
}

/** Shipping origin and policy of an item; items sharing it are charged shipping once (spec 01 §2.3 rule 6). */
export function deliveryGroupOf(item: Pick<SheetItem, 'fulfillment'>): string | null {
  if (item.fulfillment.type !== 'SHIPPING') return null;
  const s = item.fulfillment.shipping;
  return JSON.stringify([s.shippingAddressId, s.deliveryType, s.deliveryFee, s.conditionalFreeAmount]);
}

/** What coupons and points take off a sheet (checked by checkout/discounts.ts). */
export interface SheetDiscounts {
  couponDiscountAmount: number;
  pointAmount: number;
}
export const NO_DISCOUNTS: SheetDiscounts = { couponDiscountAmount: 0, pointAmount: 0 };

export interface Priced {
  amounts: OrderAmounts;
  /** Fee charged per item index (the group's fee sits on its first item). */
  itemDeliveryFees: number[];
  remoteArea: RemoteArea;
}

/**
 * The money of a sheet: items, one shipping fee per group (free over the group's conditional amount),
 * the remote-area surcharge once per shipping group when the address is remote, then coupons and points.
 */
export function priceSheet(items: SheetItem[], settings: StoreSettings, zipCode: string | null, discounts: SheetDiscounts = NO_DISCOUNTS): Priced {
  const itemsAmount = items.reduce((n, i) => n + i.amount, 0);
  const groups = new Map<string, { first: number; amount: number }>();
  items.forEach((item, index) => {
    const key = deliveryGroupOf(item);
    if (key === null) return;
    const group = groups.get(key) ?? { first: index, amount: 0 };
    group.amount += item.amount;
    groups.set(key, group);
  });
  const itemDeliveryFees = items.map(() => 0);
  for (const group of groups.values()) {
    const item = items[group.first];
    if (item.fulfillment.type !== 'SHIPPING') continue;
    const s = item.fulfillment.shipping;
    const free =
      s.deliveryType === 'FREE' || (s.deliveryType === 'CONDITIONAL_FREE' && s.conditionalFreeAmount !== null && group.amount >= s.conditionalFreeAmount);
    itemDeliveryFees[group.first] = free ? 0 : s.deliveryFee;
  }
  const remoteArea = remoteAreaOf(zipCode);
  const perGroup = remoteArea === null ? 0 : remoteArea.kind === 'JEJU' ? settings.shippingPolicy.jejuSurcharge : settings.shippingPolicy.islandSurcharge;
  const deliveryAmount = itemDeliveryFees.reduce((n, f) => n + f, 0);
  const remoteSurcharge = perGroup * groups.size;
  const { couponDiscountAmount, pointAmount } = discounts;
  const totalAmount = itemsAmount + deliveryAmount + remoteSurcharge - couponDiscountAmount - pointAmount;
  return {
    amounts: { itemsAmount, deliveryAmount, remoteSurcharge, couponDiscountAmount, pointAmount, totalAmount },
    itemDeliveryFees,
    remoteArea,
  };
}
