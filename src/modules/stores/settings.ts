import { z } from 'zod';
import { webOrigin } from '../../server/formats.js';

/** Store settings of spec 01 §2.8 that the seller edits. Read-only and computed fields are added on read. */
const krw = z.number().int().min(0).max(100_000_000);

export const address = z
  .object({
    zipCode: z.string().regex(/^\d{5}$/),
    address1: z.string().min(1).max(200),
    address2: z.string().max(200).default(''),
  })
  .strict();

export const shippingPolicy = z
  .object({
    deliveryType: z.enum(['FREE', 'PAID', 'CONDITIONAL_FREE']),
    deliveryFee: krw,
    conditionalFreeAmount: krw.nullable(),
    /** Extra fee for Jeju and for other remote islands (delivery quote). */
    jejuSurcharge: krw,
    islandSurcharge: krw,
    shippingAddressId: z.string().nullable(),
    returnAddressId: z.string().nullable(),
  })
  .strict();

export const refundPolicy = z
  .object({
    returnDeliveryFee: krw,
    exchangeDeliveryFee: krw,
    preShipmentDeliveryFeeRefund: z.boolean(),
  })
  .strict();

export const businessInfo = z
  .object({
    companyName: z.string().max(100).nullable(),
    representativeName: z.string().max(50).nullable(),
    registrationNumber: z
      .string()
      .regex(/^\d{3}-?\d{2}-?\d{5}$/)
      .nullable(),
    mailOrderSalesNumber: z.string().max(50).nullable(),
    phone: z
      .string()
      .regex(/^[0-9-]{8,15}$/)
      .nullable(),
    email: z.email().nullable(),
    address: address.nullable(),
  })
  .strict();

export const storeSettings = z
  .object({
    guestCheckout: z.boolean(),
    storefrontOrigins: z.array(webOrigin).max(20),
    testOrderReviewsAllowed: z.boolean(),
    termsVersion: z.string().max(40).nullable(),
    address: address.nullable(),
    shippingPolicy,
    refundPolicy,
    businessInfo,
  })
  .strict();

export type StoreSettings = z.infer<typeof storeSettings>;

export const defaultStoreSettings = (): StoreSettings => ({
  guestCheckout: true,
  storefrontOrigins: [],
  testOrderReviewsAllowed: false,
  termsVersion: null,
  address: null,
  shippingPolicy: {
    deliveryType: 'PAID',
    deliveryFee: 3000,
    conditionalFreeAmount: 50000,
    jejuSurcharge: 3000,
    islandSurcharge: 5000,
    shippingAddressId: null,
    returnAddressId: null,
  },
  refundPolicy: { returnDeliveryFee: 3000, exchangeDeliveryFee: 6000, preShipmentDeliveryFeeRefund: true },
  businessInfo: {
    companyName: null,
    representativeName: null,
    registrationNumber: null,
    mailOrderSalesNumber: null,
    phone: null,
    email: null,
    address: null,
  },
});

/** `PATCH /v1/store`: every field optional; a given object replaces that field whole. */
export const storePatch = storeSettings
  .partial()
  .extend({ name: z.string().min(1).max(50).optional() })
  .strict();
export type StorePatch = z.infer<typeof storePatch>;
