/**
 * Issue 4 benchmark: full sandbox purchases per second — checkout sheet → payment start → sandbox approval
 * → order (stock taken, ORDER.PAID emitted) — against `svc dev`, beside the bare-H3 figure of the same run.
 * Member buyers (delegated buyer tokens) and guests (whose order password is hashed) are measured apart.
 */
import { apiCaller, ensureSandboxCheckout, median, ownerHeaders, rps, startBareH3, startSvcDev } from './lib.js';

const CONNECTIONS = 32;
const SECONDS = 4;

const bare = await startBareH3();
const svc = await startSvcDev();
const base = svc.ready.url as string;
const admin = ownerHeaders(svc.ready);
const call = apiCaller(base);

try {
  await ensureSandboxCheckout(call, svc.ready);
  const product = await call('POST', '/v1/products', admin, { name: '벤치 상품', salePrice: 12000, stockQuantity: 10_000_000 });
  const directItem = { productId: product.productId, optionId: product.variants[0].variantId, quantity: 1 };
  const address = { receiverName: '벤치', phone: '01012345678', zipCode: '06236', address1: '서울 강남구 테헤란로 1' };
  const buyers = await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      const delegation = await call('POST', '/v1/customers/delegations', admin, { uid: `bench-${i}`, name: `벤치 ${i}` });
      return { 'x-store-id': svc.ready.storeId, authorization: `Bearer ${delegation.accessToken}` };
    }),
  );
  const guestHeaders = { 'x-store-id': svc.ready.storeId };

  const purchase = async (headers: Record<string, string>, guest: boolean) => {
    const sheet = await call('POST', '/storefront/v1/checkout', headers, { directItem });
    const start = await call('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, headers, {
      option: sheet.paymentOptions[0].key,
      returnUrl: 'http://localhost/done',
      shippingAddress: address,
      ...(guest ? { guest: { name: '벤치 손님', phone: '01012345678', email: 'bench@example.com', orderPassword: 'bench-pass' } } : {}),
    });
    const done = await call('POST', `/_dev/v1/payments/${start.paymentId}/simulate`, headers, { outcome: 'APPROVE' });
    if (!done.orderId) throw new Error(`no order: ${JSON.stringify(done)}`);
  };

  /** Purchases per second: CONNECTIONS buyers, each buying again as soon as its order exists. */
  async function purchasesPerSecond(guest: boolean, seconds = SECONDS) {
    const until = performance.now() + seconds * 1000;
    let count = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, i) => {
        while (performance.now() < until) {
          await purchase(guest ? guestHeaders : buyers[i], guest);
          count++;
        }
      }),
    );
    return count / ((performance.now() - t0) / 1000);
  }

  await purchasesPerSecond(false, 1); // warm-up
  await rps(`${bare.ready.url}/hello`, {}, 1);
  const bareRuns: number[] = [];
  const memberRuns: number[] = [];
  for (let i = 0; i < 2; i++) {
    bareRuns.push(await rps(`${bare.ready.url}/hello`));
    memberRuns.push(await purchasesPerSecond(false));
  }
  const guestRate = await purchasesPerSecond(true);
  const bareRps = median(bareRuns);
  const memberRate = median(memberRuns);
  console.log(
    `full sandbox purchases (sheet → start → approve → order), member buyers: ${Math.round(memberRate)}/s = ${Math.round(memberRate * 3)} req/s (target ≥ 300/s)`,
  );
  console.log(`full sandbox purchases, guest buyers (order password hashed with scrypt): ${Math.round(guestRate)}/s`);
  console.log(`bare H3 ${Math.round(bareRps)} req/s → one purchase costs about ${(bareRps / memberRate).toFixed(0)} bare requests`);
  const stock = await call('GET', `/v1/products/${product.productId}`, admin);
  console.log(`orders made: ${10_000_000 - stock.stockQuantity}`);
} finally {
  bare.child.kill();
  svc.child.kill();
}
