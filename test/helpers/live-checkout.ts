import { startFakeGateway, type FakeGateway } from './fake-gateway.js';
import { ADDRESS, GUEST, PG_ONE_TEST, buyerApi, createProduct, directSheet, ok, simulate, startGuestPayment } from './checkout.js';
import { PG_ONE_LIVE, PG_TWO_LIVE } from './payment-providers.js';
import { newSellerWithStore, startTestService, type Api, type TestService } from './service.js';

/** A return address live payments accept (https). */
export const SHOP_RETURN = 'https://shop.example.com/checkout/done';

/**
 * Takes a store live on pg_one the way a seller does: sandbox keys, a sandbox payment and an automatic
 * cancel (the live gate's sandbox conditions), live keys checked against the fake gateway, the platform's
 * permission, then `sandboxMode: false`. Point SVC_PG_ONE_API_URL at the fake before the service starts.
 */
export async function goLive(svc: TestService, api: Api, guest: Api, storeId: string, item: Record<string, unknown>) {
  ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: PG_ONE_TEST }));
  ok(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { enabled: true } }));
  ok(await api('POST', '/v1/store/payment-providers/pg_one/verify', { body: {} }));
  ok(await simulate(guest, ok(await startGuestPayment(guest, await directSheet(guest, item)), 201).paymentId, 'APPROVE'));
  const mismatch = ok(await startGuestPayment(guest, await directSheet(guest, item)), 201);
  ok(await svc.api('POST', `/_dev/v1/payments/${mismatch.paymentId}/simulate`, { body: { outcome: 'APPROVE', amount: 100 } }));
  ok(await api('PUT', '/v1/store/payment-providers/pg_one', { body: PG_ONE_LIVE }));
  ok(await api('POST', '/v1/store/payment-providers/pg_one/verify', { body: { environment: 'LIVE' } }));
  ok(await api('POST', '/_dev/v1/payment-settings/platform-live', { body: { storeId, enabled: true } }));
  ok(await api('PATCH', '/v1/store/payment-providers/pg_one', { body: { sandboxMode: false } }));
}

/**
 * A service whose store `handle` sells one product live on pg_one, the gateways stood in by a fake on
 * loopback: what the live checkout tests start from. `close` stops both.
 */
export async function startLiveStore(handle: string, product: { name: string; salePrice: number }) {
  const fake = await startFakeGateway(PG_ONE_LIVE.secretKey, PG_TWO_LIVE.apiSecret);
  process.env.SVC_PG_ONE_API_URL = fake.url;
  const svc = await startTestService();
  const seller = await newSellerWithStore(svc, handle);
  const guest = buyerApi(svc, seller.storeId);
  const p = await createProduct(seller.api, product);
  const item = { productId: p.productId as string, optionId: p.optionId as string };
  await goLive(svc, seller.api, guest, seller.storeId, item);
  const close = async () => {
    await svc.close();
    await fake.close();
  };
  return { svc, fake, seller, api: seller.api, guest, item, close };
}

/**
 * A guest buys live: the payment starts, the buyer approves `key` in the gateway's window (paid with
 * `gatewayMethod`, pg_one's name for it), and comes back through /pay/{id}/return; the order is made.
 */
export async function buyLive(
  svc: TestService,
  fake: FakeGateway,
  api: Api,
  guest: Api,
  item: Record<string, unknown>,
  options: { key: string; option?: string; gatewayMethod?: string; cashReceipt?: Record<string, string> },
) {
  const sheet = await directSheet(guest, item);
  const start = ok(
    await startGuestPayment(guest, sheet, {
      returnUrl: SHOP_RETURN,
      shippingAddress: ADDRESS,
      guest: GUEST,
      ...(options.option ? { option: options.option } : {}),
      ...(options.cashReceipt ? { cashReceipt: options.cashReceipt } : {}),
    }),
    201,
  );
  const pgOrderId: string = ok(await api('GET', `/v1/payments/${start.paymentId}`)).attempts[0].pgOrderId;
  fake.payments.set(options.key, {
    key: options.key,
    orderId: pgOrderId,
    amount: start.amounts.totalAmount,
    status: 'IN_PROGRESS',
    method: options.gatewayMethod ?? '카드',
    canceled: 0,
  });
  const back = await fetch(`${svc.url}/pay/${start.paymentId}/return?attemptId=${start.attemptId}&paymentKey=${options.key}`, { redirect: 'manual' });
  const to = new URL(back.headers.get('location')!);
  if (to.searchParams.get('status') !== 'COMPLETED') throw new Error(`live purchase not completed: ${to}`);
  return { paymentId: start.paymentId as string, orderId: to.searchParams.get('orderId')!, pgOrderId, amount: start.amounts.totalAmount as number };
}
