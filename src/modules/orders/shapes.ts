// What an order is made of as checkout hands it over and every reader shows it: the buyer's address and
// phone, a guest's order look-up, the amounts and a priced stay (checkout's inputs and views use these).
import { z } from 'zod';
import { calendarDate, won } from '../../server/responses.js';

/**
 * Phone numbers of spec 02 §2.4, digits only: mobile, 050 safe numbers (0503–0508), 070, and area-code
 * numbers (02, 031–033, 041–044, 051–055, 061–064).
 */
const PHONE = /^(?:01[016789]\d{7,8}|050[3-8]\d{7,8}|070\d{7,8}|02\d{7,8}|0(?:3[1-3]|4[1-4]|5[1-5]|6[1-4])\d{7,8})$/;
export const phone = z.string().regex(PHONE, { message: '전화번호는 숫자만, 휴대폰·0503~0508 안심번호·070·지역번호 형식이어야 합니다.' });

export const shippingAddress = z
  .object({
    receiverName: z.string().trim().min(1).max(50),
    phone,
    zipCode: z.string().regex(/^\d{5}$/),
    address1: z.string().trim().min(1).max(200),
    address2: z.string().max(200).default(''),
    deliveryMemo: z.string().max(100).nullable().default(null),
  })
  .strict();

export const guestLookup = z
  .object({
    orderNo: z.string().regex(/^\d{8}-?\d{6}$/, { message: '주문번호는 14자리 숫자입니다(하이픈 허용).' }),
    orderPassword: z.string().min(1).max(128),
  })
  .strict();

/** A priced stay: the nights from check-in to the night before check-out, each at its price fixed at order time. */
export const stayView = z.object({ checkIn: calendarDate, checkOut: calendarDate, nights: z.array(z.object({ date: calendarDate, price: won })) });

/**
 * What the buyer chose of a product's add-on groups (priced in the unit price) and typed into its custom
 * inputs (issue 30): a sheet item and an order item show them, and `ORDER.PAID.itemOptions` repeats them.
 */
export const itemOptionsViews = {
  optionSelections: z
    .array(z.object({ name: z.string().describe('Add-on group'), value: z.string(), additionalPrice: won.describe('Won added to one unit') }))
    .describe('Add-on picks; their prices are in unitPrice'),
  customInputs: z.array(z.object({ key: z.string(), label: z.string(), value: z.string() })).describe('Text the buyer typed or picked'),
};

/** `amounts` of a sheet, a payment and an order, as checkout's `priceSheet` computes them. */
export const amountsView = z.object({
  itemsAmount: won,
  deliveryAmount: won.describe('Shipping fees: one per shipping group, 0 when free.'),
  remoteSurcharge: won.describe('Jeju or island surcharge, once per shipping group.'),
  couponDiscountAmount: won,
  pointAmount: won.describe('Points spent.'),
  totalAmount: won.describe('What the buyer pays: items + delivery + surcharge − coupons − points.'),
});
