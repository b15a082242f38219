import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestService, type TestService } from '../helpers/service.js';
import { connectSandbox, createProduct } from '../helpers/checkout.js';
import { onPostgres } from '../helpers/postgres.js';
import { countMemberPurchase } from '../helpers/purchase-count.js';

let svc: TestService;

test.before(async () => {
  svc = await startTestService();
  await connectSandbox(svc.api);
});
test.after(async () => {
  await svc.close();
});

/**
 * Issue 31 asks for at most 25 PostgreSQL round trips per purchase; before the first cuts one took 100 (98
 * statements on SQLite), after the second about 61, after the third 54 (docs/scale.md). This keeps what was won: a change that adds
 * work to the purchase path shows here, and the limit comes down with each cut (the margin is the job loop's
 * statements, which a busy machine lets into every one of the counted purchases).
 */
const MOST_ROUND_TRIPS = 60;

test(`one member purchase (sheet → start → approve → order) takes at most ${MOST_ROUND_TRIPS} database round trips`, async () => {
  const product = await createProduct(svc.api, { name: '셀 상품', salePrice: 12000, stockQuantity: 1000 });
  const count = await countMemberPurchase(svc, { productId: product.productId, optionId: product.optionId }, 'counted-member', 5);
  console.log(`${onPostgres ? 'PostgreSQL' : 'SQLite'}: ${JSON.stringify(count)}`);
  assert.ok(count.total.roundTrips > 0, 'statements are counted');
  assert.ok(count.total.roundTrips <= MOST_ROUND_TRIPS, `round trips per purchase: ${count.total.roundTrips}`);
});

test.run();
