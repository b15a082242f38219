/**
 * The buyer API's shapes this template reads (`/storefront/v1`), named from `src/svc-api.d.ts`: the types written
 * from the service's OpenAPI document (`svc storefront types` writes them again after the service changes).
 */
import type { Body, Data } from '../svc-api.js';

/** `GET /products/{productId}`. */
export type Product = Data<'storefrontGetProduct'>;
export type Variant = Product['variants'][number];
/** `GET /collections/{slug}/products`: a page of products. */
export type ProductPage = Data<'storefrontListCollectionProducts'>;
/** `GET /store`. */
export type Store = Data<'storefrontGetStore'>;
/** The dates of a stay (check-out is the morning after the last night). */
export type Stay = NonNullable<Body<'storefrontAddCartItem'>['stay']>;
/** `POST /cart/items`: a line to add, with its add-on picks and custom input text. */
export type CartAdd = Body<'storefrontAddCartItem'>;
/** `GET /cart`. */
export type Cart = Data<'storefrontGetCart'>;
export type CartItem = Cart['items'][number];
/** `GET /checkout/{checkoutId}`: the order sheet. */
export type Sheet = Data<'storefrontGetCheckout'>;
export type Amounts = Sheet['amounts'];
export type PaymentOption = Sheet['paymentOptions'][number];
/** `POST /checkout/{checkoutId}/payment`. */
export type PaymentStart = Data<'storefrontStartPayment'>;
/** What the pay page appends to the return address, and what `GET /payments/{paymentId}/result` answers. */
export type PaymentResult = Data<'storefrontGetPaymentResult'>;
