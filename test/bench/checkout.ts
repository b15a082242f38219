/**
 * Issue 4 benchmark: full sandbox purchases per second — checkout sheet → payment start → sandbox approval
 * → order (stock taken, ORDER.PAID emitted) — against `svc dev`, beside the bare-H3 figure of the same run.
 * Member buyers (delegated buyer tokens) and guests (whose order password is hashed) are measured apart.
 */
import {
  apiCaller,
  bareRun,
  cpuFigure,
  ensureSandboxCheckout,
  figure,
  median,
  ownerHeaders,
  rounds,
  seconds,
  startBareH3,
  startSvcDev,
  withCpu,
} from './lib.js';

const CONNECTIONS = 32;
const SECONDS = seconds(4);

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

  /** Purchases per second: CONNECTIONS buyers, each buying again as soon as its order exists; and the service's CPU µs per purchase. */
  async function purchasesPerSecond(guest: boolean, duration = SECONDS) {
    const until = performance.now() + duration * 1000;
    let count = 0;
    const t0 = performance.now();
    const { cpuPerOp } = await withCpu(
      svc.child.pid!,
      () =>
        Promise.all(
          Array.from({ length: CONNECTIONS }, async (_, i) => {
            while (performance.now() < until) {
              await purchase(guest ? guestHeaders : buyers[i], guest);
              count++;
            }
          }),
        ),
      () => count,
    );
    return { rate: count / ((performance.now() - t0) / 1000), cpuPerOp };
  }

  await purchasesPerSecond(false, 1); // warm-up
  await bareRun(bare, 1);
  const bareRuns: Awaited<ReturnType<typeof bareRun>>[] = [];
  const memberRuns: Awaited<ReturnType<typeof purchasesPerSecond>>[] = [];
  for (let i = 0; i < rounds(2); i++) {
    bareRuns.push(await bareRun(bare));
    memberRuns.push(await purchasesPerSecond(false));
  }
  const guest = await purchasesPerSecond(true);
  const bareRps = median(bareRuns.map((r) => r.rps));
  const bareCpu = median(bareRuns.map((r) => r.cpuPerOp));
  const memberRate = median(memberRuns.map((r) => r.rate));
  const memberCpu = median(memberRuns.map((r) => r.cpuPerOp));
  console.log(
    `full sandbox purchases (sheet → start → approve → order), member buyers: ${Math.round(memberRate)}/s = ${Math.round(memberRate * 3)} req/s (target ≥ 300/s)`,
  );
  console.log(`full sandbox purchases, guest buyers (order password hashed with scrypt): ${Math.round(guest.rate)}/s`);
  console.log(
    `bare H3 ${Math.round(bareRps)} req/s → one purchase costs about ${(bareRps / memberRate).toFixed(0)} bare requests (target ≤ 100); in CPU, ${(memberCpu / bareCpu).toFixed(0)} bare requests`,
  );
  figure({ name: 'member purchase', value: memberRate, unit: 'purchases/s', ratio: memberRate / bareRps, baseline: 'bare H3' });
  figure({ name: 'member purchase in bare-H3 requests', value: bareRps / memberRate, unit: 'requests' });
  figure({ name: 'member purchase in bare-H3 request CPU', value: memberCpu / bareCpu, unit: 'requests' });
  cpuFigure('member purchase', memberCpu, { name: 'bare H3 request', microseconds: bareCpu });
  cpuFigure('guest purchase', guest.cpuPerOp, { name: 'bare H3 request', microseconds: bareCpu });
  const stock = await call('GET', `/v1/products/${product.productId}`, admin);
  console.log(`orders made: ${10_000_000 - stock.stockQuantity}`);
} finally {
  bare.child.kill();
  svc.child.kill();
}
