/**
 * Issue 12 benchmark: the checkout price preview with two stackable coupons and points (each checked and
 * priced on every request) for a member buyer, against `svc dev`, beside the bare-H3 figure of the same run.
 */
import { apiCaller, bareRun, cpuFigure, ensureSandboxCheckout, figure, median, ownerHeaders, rounds, rpsWithCpu, startBareH3, startSvcDev } from './lib.js';

const bare = await startBareH3();
const svc = await startSvcDev();
const base = svc.ready.url as string;
const admin = ownerHeaders(svc.ready);
const call = apiCaller(base);

try {
  await ensureSandboxCheckout(call, svc.ready);
  await call('PUT', '/v1/point-policy', admin, {
    earnEnabled: true,
    defaultEarnRateBp: 100,
    validityDays: 365,
    useEnabled: true,
    minUseAmount: 1000,
    maxUseRateBp: 5000,
  });
  const shirt = await call('POST', '/v1/products', admin, { name: '벤치 셔츠', salePrice: 30000, stockQuantity: 1000 });
  const percent = await call('POST', '/v1/coupons', admin, {
    name: '셔츠 20%',
    issueType: 'MANUAL',
    benefit: { method: 'PERCENT', value: 20, maxDiscountAmount: 5000 },
    target: { kind: 'PRODUCTS', ids: [shirt.productId] },
    stackable: true,
  });
  const amount = await call('POST', '/v1/coupons', admin, {
    name: '2천원',
    issueType: 'MANUAL',
    benefit: { method: 'AMOUNT', value: 2000 },
    minOrderAmount: 20000,
    stackable: true,
  });
  const delegation = await call('POST', '/v1/customers/delegations', admin, { uid: 'bench-pricing', name: '벤치 회원' });
  const customerId = delegation.customer.customerId;
  const codes = [];
  for (const c of [percent, amount])
    codes.push({ code: (await call('POST', `/v1/coupons/${c.couponId}/grants`, admin, { customerIds: [customerId] })).granted[0].couponItem.code });
  await call('POST', `/v1/customers/${customerId}/points`, admin, { amount: 50000, reason: '벤치' });
  const buyer = { 'x-store-id': svc.ready.storeId, authorization: `Bearer ${delegation.accessToken}` };
  const sheet = await call('POST', '/storefront/v1/checkout', buyer, {
    directItem: { productId: shirt.productId, optionId: shirt.variants[0].variantId, quantity: 1 },
  });
  const url = `${base}/storefront/v1/checkout/${sheet.checkoutId}/pricing`;
  const body = { coupons: codes, pointAmount: 3000 };
  const check = await call('POST', `/storefront/v1/checkout/${sheet.checkoutId}/pricing`, buyer, body);
  if (check.amounts.couponDiscountAmount !== 7000 || check.amounts.pointAmount !== 3000) throw new Error(`unexpected pricing ${JSON.stringify(check.amounts)}`);

  const pid = svc.child.pid!;
  await bareRun(bare, 1);
  await rpsWithCpu(pid, url, buyer, 1, { method: 'POST', body });
  const bareRuns: Awaited<ReturnType<typeof bareRun>>[] = [];
  const pricingRuns: Awaited<ReturnType<typeof bareRun>>[] = [];
  for (let i = 0; i < rounds(2); i++) {
    bareRuns.push(await bareRun(bare));
    pricingRuns.push(await rpsWithCpu(pid, url, buyer, undefined, { method: 'POST', body }));
  }
  const bareRps = median(bareRuns.map((r) => r.rps));
  const pricing = median(pricingRuns.map((r) => r.rps));
  console.log(
    `price preview, two coupons and points, member buyer: ${Math.round(pricing)} req/s · bare H3 ${Math.round(bareRps)} req/s → ${((pricing / bareRps) * 100).toFixed(1)}% (target ≥ 25%)`,
  );
  figure({ name: 'price preview two coupons and points', value: pricing, unit: 'req/s', ratio: pricing / bareRps, baseline: 'bare H3' });
  cpuFigure('price preview', median(pricingRuns.map((r) => r.cpuPerOp)), { name: 'bare H3 request', microseconds: median(bareRuns.map((r) => r.cpuPerOp)) });
} finally {
  bare.child.kill();
  svc.child.kill();
}
