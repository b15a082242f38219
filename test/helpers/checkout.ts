import { fails, ok } from './assert.js';
import { apiClient, type Api, type TestService } from './service.js';
import { PG_ONE_TEST } from './payment-providers.js';

export { fails, ok, PG_ONE_TEST };
export const PG_TWO_TEST = {
  environment: 'TEST',
  storeId: 'store-4f7e2c1a-0000-4000-8000-000000000001',
  channels: [{ channelKey: 'channel-key-card-0001', channelName: '카드', methods: ['CARD', 'EASY_PAY', 'BANK_TRANSFER'] }],
  apiSecret: 'portone-api-secret-0123456789abcdef',
};
export const RETURN_URL = 'http://localhost:5173/checkout/done';
export const GUEST = { name: '김구매', phone: '01012345678', email: 'buyer@example.com', orderPassword: 'guest-pass-1' };
export const ADDRESS = { receiverName: '김수령', phone: '01098765432', zipCode: '06236', address1: '서울 강남구 테헤란로 1', address2: '101호' };

/** Connects a provider with test keys and enables it (a new provider is stored disabled, in sandbox mode). */
export async function connectSandbox(api: Api, pg: 'pg_one' | 'pg_two' = 'pg_one') {
  ok(await api('PUT', `/v1/store/payment-providers/${pg}`, { body: pg === 'pg_one' ? PG_ONE_TEST : PG_TWO_TEST }));
  ok(await api('PATCH', `/v1/store/payment-providers/${pg}`, { body: { enabled: true } }));
}

export async function createProduct(api: Api, body: Record<string, unknown>) {
  const product = ok(await api('POST', '/v1/products', { body: { name: '테스트 상품', salePrice: 10000, stockQuantity: 100, ...body } }), 201);
  return { productId: product.productId as string, optionId: product.variants[0].variantId as string, product };
}

/** The buyer API of a store: no token (guest) unless given, X-Store-Id set. */
export const buyerApi = (svc: TestService, storeId: string, token?: string): Api => apiClient(svc.url, { storeId, token });

export const directSheet = async (buyer: Api, item: Record<string, unknown>) =>
  ok(await buyer('POST', '/storefront/v1/checkout', { body: { directItem: { quantity: 1, ...item } } }), 201);

export async function startGuestPayment(buyer: Api, sheet: any, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return buyer('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, {
    headers,
    body: {
      option: sheet.paymentOptions[0] ? { pg: sheet.paymentOptions[0].pg, method: sheet.paymentOptions[0].method } : undefined,
      guest: GUEST,
      returnUrl: RETURN_URL,
      ...(sheet.requiresShipping ? { shippingAddress: ADDRESS } : {}),
      ...extra,
    },
  });
}

export const simulate = (api: Api, paymentId: string, outcome: string) => api('POST', `/_dev/v1/payments/${paymentId}/simulate`, { body: { outcome } });

/** Sheet → payment → approval → order, as a guest; returns the simulate answer (with `orderId`). */
export async function buy(svc: TestService, storeId: string, item: Record<string, unknown>) {
  const buyer = buyerApi(svc, storeId);
  const sheet = await directSheet(buyer, item);
  const start = ok(await startGuestPayment(buyer, sheet), 201);
  const done = ok(await simulate(buyer, start.paymentId, 'APPROVE'));
  return { sheet, start, done };
}
