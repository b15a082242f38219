/**
 * Issue 11 benchmark: seller flow actions through the API (item moves per second, each writing its flow
 * run and ORDER.FLOW_STATE_CHANGED + ORDER.* events in the move's transaction), and `simulate` of a
 * 1,000-step trace, against `svc dev` in its own process.
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

const bare = await startBareH3();
const svc = await startSvcDev();
const base = svc.ready.url as string;
const admin = ownerHeaders(svc.ready);
const call = apiCaller(base);

/** Two states the seller moves an item between; each move changes its core status, so ORDER.* events fire too. */
const TOGGLE = {
  progression: 'ITEM',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID' },
    WORKING: { label: '작업중', coreStatus: 'CONFIRMED' },
    RESTING: { label: '쉬는 중', coreStatus: 'CONFIRMED' },
  },
  transitions: [
    { from: 'PAID', to: 'WORKING', on: { action: 'TOGGLE' } },
    { from: 'WORKING', to: 'RESTING', on: { action: 'TOGGLE' }, when: 'item.quantity >= 1' },
    { from: 'RESTING', to: 'WORKING', on: { action: 'TOGGLE' } },
  ],
  actions: { TOGGLE: { label: '전환', actor: 'SELLER', scope: 'ITEM' } },
};

try {
  await ensureSandboxCheckout(call, svc.ready);
  const flow = await call('POST', '/v1/commerce-flows', admin, { name: '벤치 흐름', kind: 'SHIPPING', definition: TOGGLE });
  await call('POST', `/v1/commerce-flows/${flow.flowId}/publish`, admin);
  const product = await call('POST', '/v1/products', admin, { name: '벤치 상품', salePrice: 12000, stockQuantity: 1000, flowId: flow.flowId });
  const guest = { 'x-store-id': svc.ready.storeId };
  const items: string[] = [];
  for (let i = 0; i < 32; i++) {
    const sheet = await call('POST', '/storefront/v1/checkout', guest, {
      directItem: { productId: product.productId, optionId: product.variants[0].variantId, quantity: 1 },
    });
    const start = await call('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, guest, {
      option: sheet.paymentOptions[0].key,
      returnUrl: 'http://localhost/done',
      shippingAddress: { receiverName: '벤치', phone: '01012345678', zipCode: '06236', address1: '서울 강남구 테헤란로 1' },
      guest: { name: '벤치 손님', phone: '01012345678', email: 'bench@example.com', orderPassword: 'bench-pass' },
    });
    const done = await call('POST', `/_dev/v1/payments/${start.paymentId}/simulate`, guest, { outcome: 'APPROVE' });
    items.push((await call('GET', `/v1/orders/${done.orderId}`, admin)).items[0].orderItemId);
  }

  /** Moves per second: one request loop per item (moves of one item never race each other), 32 at once; and the service's CPU µs per move. */
  async function bulkMoves(duration: number) {
    const until = performance.now() + duration * 1000;
    let count = 0;
    const t0 = performance.now();
    const { cpuPerOp } = await withCpu(
      svc.child.pid!,
      () =>
        Promise.all(
          items.map(async (id) => {
            while (performance.now() < until) {
              await call('POST', `/v1/order-items/${id}/actions/TOGGLE`, admin, { input: {} });
              count++;
            }
          }),
        ),
      () => count,
    );
    return { rate: count / ((performance.now() - t0) / 1000), cpuPerOp };
  }
  await bulkMoves(1); // warm-up
  await bareRun(bare, 1);
  const moveRuns: Awaited<ReturnType<typeof bulkMoves>>[] = [];
  const bareRuns: Awaited<ReturnType<typeof bareRun>>[] = [];
  for (let i = 0; i < rounds(2); i++) {
    bareRuns.push(await bareRun(bare));
    moveRuns.push(await bulkMoves(seconds(4)));
  }
  const runs = await call('GET', `/v1/order-items/${items[0]}/flow/runs`, admin);
  const eventsPerRun = runs.contents.slice(1).every((r: any) => r.eventIds.length >= 1);
  const moves = median(moveRuns.map((r) => r.rate));
  const bareRps = median(bareRuns.map((r) => r.rps));
  console.log(
    `seller flow actions through the API (32 items, POST /actions/TOGGLE): ${Math.round(moves)} item moves/s (target ≥ 2,000/s) vs bare H3 ${Math.round(bareRps)} req/s → ${((100 * moves) / bareRps).toFixed(1)}%; every move wrote its run and events: ${eventsPerRun}`,
  );
  figure({ name: 'seller flow action moves', value: moves, unit: 'moves/s', ratio: moves / bareRps, baseline: 'bare H3' });
  cpuFigure('seller flow action move', median(moveRuns.map((r) => r.cpuPerOp)), {
    name: 'bare H3 request',
    microseconds: median(bareRuns.map((r) => r.cpuPerOp)),
  });

  const steps = Array.from({ length: 1000 }, () => ({ action: 'TOGGLE' }));
  const times: number[] = [];
  for (let i = 0; i < rounds(20); i++) {
    const t0 = performance.now();
    const sim = await call('POST', `/v1/commerce-flows/${flow.flowId}/draft/simulate`, admin, { steps });
    times.push(performance.now() - t0);
    if (sim.trace.length !== 1001) throw new Error(`trace of ${sim.trace.length}`);
  }
  console.log(
    `simulate of a 1,000-step trace, HTTP round trip: median ${median(times).toFixed(1)} ms, best ${Math.min(...times).toFixed(1)} ms (target ≤ 50 ms)`,
  );
  figure({ name: 'simulate 1,000 steps', value: median(times), unit: 'ms' });
} finally {
  bare.child.kill();
  svc.child.kill();
}
