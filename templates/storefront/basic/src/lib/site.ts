/** What the server embeds in every page for the client (`#svc-site`), and the site's own addresses. */
export interface SiteConfig {
  /** Ends with `/`, e.g. `http://dev-store.localhost:8787/` (svc dev). */
  siteUrl: string;
  storefrontApiUrl: string;
  storeId: string;
  /** The picture shown for products without images. */
  placeholderImage: string;
}

export function paths(siteUrl: string) {
  return {
    home: siteUrl,
    product: (productId: string) => `${siteUrl}products/${encodeURIComponent(productId)}`,
    cart: `${siteUrl}cart`,
    checkout: (checkoutId?: string) => (checkoutId ? `${siteUrl}checkout?id=${encodeURIComponent(checkoutId)}` : `${siteUrl}checkout`),
    /** The return address given to the pay page: it appends `status`, `paymentId`, `orderId` or `code`/`message`. */
    complete: (checkoutId: string, more: Record<string, string> = {}) =>
      `${siteUrl}orders/complete?${Object.entries({ checkoutId, ...more }).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`,
  };
}

/** localStorage key of the guest's cart id: the cart itself lives in the buyer API (`x-svc-cart`). */
export const CART_ID_KEY = (storeId: string) => `svc-cart:${storeId}`;
