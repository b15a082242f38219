/** The buyer API's shapes this template reads (`/storefront/v1`, see the service's OpenAPI document). */

export interface Variant {
  variantId: string;
  optionId: string;
  optionValues: string[];
  additionalAmount: number;
  price: number;
  /** Always false for dated products: their availability is in the calendar. */
  soldOut: boolean;
}

export interface Product {
  productId: string;
  productNo: number;
  name: string;
  salePrice: number;
  originalPrice: number | null;
  price: number;
  imageUrls: string[];
  options: { name: string; values: string[] }[];
  variants: Variant[];
  fulfillment: { type: 'SHIPPING'; shipping: { deliveryType: 'FREE' | 'PAID' | 'CONDITIONAL_FREE'; deliveryFee: number; conditionalFreeAmount: number | null } } | { type: 'MANUAL' };
  inventoryMode: 'STANDARD' | 'DATED';
}

export interface Page<T> {
  page: number;
  size: number;
  totalElements: number;
  totalPages: number;
  contents: T[];
}

export interface Store {
  storeId: string;
  name: string;
  guestCheckout: boolean;
  checkoutAvailable: boolean;
  checkoutMode: string | null;
  checkoutUnavailableReason: string | null;
}

export interface Stay {
  checkIn: string;
  checkOut: string;
}

export interface Amounts {
  itemsAmount: number;
  deliveryAmount: number;
  remoteSurcharge: number;
  couponDiscountAmount: number;
  pointAmount: number;
  totalAmount: number;
}

export interface CartItem {
  cartItemId: string;
  productId: string;
  optionId: string;
  quantity: number;
  name: string | null;
  optionValues: string[];
  unitPrice: number | null;
  amount: number | null;
  stay: (Stay & { nights?: { date: string; price: number }[] }) | null;
  thumbnailUrl: string | null;
  available: boolean;
  unavailableReason: string | null;
}

export interface Cart {
  cartId: string | null;
  items: CartItem[];
  itemsAmount: number;
}

export interface PaymentOption {
  key: string;
  label: string;
  pgName: string;
}

export interface Sheet {
  checkoutId: string;
  status: 'OPEN' | 'COMPLETED' | 'EXPIRED';
  items: { productId: string; optionId: string; name: string; optionValues: string[]; quantity: number; unitPrice: number; amount: number; stay: Stay | null; thumbnailUrl: string | null }[];
  paymentOptions: PaymentOption[];
  requiresShipping: boolean;
  delivery: { zipCode: string | null; remoteSurcharge: number; remoteAreaLabel: string | null };
  amounts: Amounts;
  paymentRequired: boolean;
  guestCheckout: boolean;
  testPayment: boolean;
  orderId: string | null;
  expiresAt: string;
}

export interface PaymentStart {
  status: 'ready' | 'completed';
  paymentId: string;
  payUrl: string | null;
  orderId: string | null;
  amounts: Amounts;
  testPayment: boolean;
}

/** What the pay page appends to the return address, and what `GET /payments/{paymentId}/result` answers. */
export type PaymentResult =
  | { status: 'COMPLETED'; paymentId: string; orderId: string }
  | { status: 'PROCESSING'; paymentId: string }
  | { status: 'CANCELED'; paymentId: string }
  | { status: 'FAILED'; paymentId: string; code: string; message: string; optionUnavailable?: true };
