import * as assert from 'uvu/assert';
import { fails, ok } from './assert.js';
import { apiClient, login, type Api, type TestService } from './service.js';
import { buy, buyerApi, connectSandbox, createProduct, GUEST, RETURN_URL, simulate } from './checkout.js';
import { startReceiver } from './webhook-receiver.js';

export { buy, buyerApi, connectSandbox, createProduct, fails, GUEST, ok };

export const FLOW_EVENTS = [
  'ORDER.PAID',
  'ORDER.CONFIRMED',
  'ORDER.DISPATCHED',
  'ORDER.DELIVERED',
  'ORDER.FULFILLED',
  'ORDER.PURCHASE_DECIDED',
  'ORDER.FLOW_STATE_CHANGED',
  'ORDER.FLOW_NOTIFICATION',
];

/** A receiver subscribed to every order-flow event of the store; `events()` are the bodies received so far, parsed. */
export async function subscribe(api: Api) {
  const receiver = await startReceiver();
  ok(await api('POST', '/v1/webhooks', { body: { url: receiver.url, eventTypes: FLOW_EVENTS } }), 201);
  const bodies = () => receiver.received.map((r) => JSON.parse(r.body));
  return {
    receiver,
    bodies,
    /** Waits until `n` events of the order arrived; returns them in `sequence` order. */
    async forOrder(orderId: string, n: number) {
      const until = Date.now() + 10_000;
      for (;;) {
        const mine = bodies()
          .filter((b) => b.data.orderId === orderId)
          .sort((a, b) => a.sequence - b.sequence);
        if (mine.length >= n) return mine;
        if (Date.now() > until) throw new Error(`got ${mine.length} of ${n} events of ${orderId}: ${JSON.stringify(mine.map((b) => b.type))}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}

/** The seeded owner's api after the clock moved past its login's life (15 minutes). */
export async function freshApi(svc: TestService): Promise<Api> {
  return apiClient(svc.url, { token: await login(svc), storeId: svc.storeId });
}

/** One guest purchase of a new product; returns the order, its single item and the buyer's order password. */
export async function guestOrder(svc: TestService, api: Api, product: Record<string, unknown> = {}) {
  const p = await createProduct(api, product);
  const { done } = await buy(svc, svc.storeId, { productId: p.productId, optionId: p.optionId });
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  return { order, item: order.items[0], product: p, password: GUEST.orderPassword };
}

/** A member buyer (by delegation) buying the given products in one order through the cart. */
export async function memberOrder(svc: TestService, api: Api, uid: string, productIds: { productId: string; optionId: string }[]) {
  const token = ok(await api('POST', '/v1/customers/delegations', { body: { uid, email: `${uid}@example.com`, name: '회원' } }), 201).accessToken as string;
  const buyer = buyerApi(svc, svc.storeId, token);
  for (const p of productIds)
    ok(await buyer('POST', '/storefront/v1/cart/items', { body: { productId: p.productId, optionId: p.optionId, quantity: 1 } }), 201);
  const lines = ok(await buyer('GET', '/storefront/v1/cart')).items.map((i: any) => i.cartItemId);
  const sheet = ok(await buyer('POST', '/storefront/v1/checkout', { body: { cartItemIds: lines } }), 201);
  const shipping = sheet.requiresShipping
    ? { shippingAddress: { receiverName: '김수령', phone: '01098765432', zipCode: '06236', address1: '서울 강남구 테헤란로 1', address2: '101호' } }
    : {};
  const start = ok(
    await buyer('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, { body: { option: 'pg_one:CARD', returnUrl: RETURN_URL, ...shipping } }),
    201,
  );
  const done = ok(await simulate(buyer, start.paymentId, 'APPROVE'));
  const order = ok(await api('GET', `/v1/orders/${done.orderId}`));
  return { order, buyer, token };
}

/** The `data` of a received event, checked to be of `type` with the envelope fields of spec 01 §6.1. */
export function dataOf(body: any, type: string, sequence: number) {
  assert.is(body.type, type);
  assert.is(body.sequence, sequence, `${type} sequence`);
  return body.data;
}
