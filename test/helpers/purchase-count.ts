import { statementCounter, type StatementCount } from '../../src/db/statement-count.js';
import { ok } from './assert.js';
import { ADDRESS, RETURN_URL, simulate } from './checkout.js';
import { signIn } from './members.js';
import type { TestService } from './service.js';

/** What each step of a member purchase cost the database, and the whole. */
export interface PurchaseCount {
  sheet: StatementCount;
  start: StatementCount;
  approve: StatementCount;
  total: StatementCount;
}

const since = (count: StatementCount, before: StatementCount): StatementCount => ({
  statements: count.statements - before.statements,
  roundTrips: count.roundTrips - before.roundTrips,
});

const least = (counts: StatementCount[]): StatementCount => ({
  statements: Math.min(...counts.map((c) => c.statements)),
  roundTrips: Math.min(...counts.map((c) => c.roundTrips)),
});

/**
 * Statements and round trips of one member purchase (sheet → start → approve → order) of `product`, counted
 * step by step on the service's database. The buyer buys once first, so what a first purchase sets up once
 * (the member's row, the day's counters) is not counted. The service's job workers query on their own
 * schedule meanwhile, counted too: of `runs` purchases, each step's least count is the purchase's own.
 */
export async function countMemberPurchase(
  svc: TestService,
  product: { productId: string; optionId: string },
  uid = 'counted-member',
  runs = 3,
): Promise<PurchaseCount> {
  const { buyer } = await signIn(svc, svc.api, uid);
  const purchase = async (step: (name: keyof Omit<PurchaseCount, 'total'>) => void) => {
    const sheet = ok(await buyer('POST', '/storefront/v1/checkout', { body: { directItem: { quantity: 1, ...product } } }), 201);
    step('sheet');
    const start = ok(
      await buyer('POST', `/storefront/v1/checkout/${sheet.checkoutId}/payment`, {
        body: { option: 'pg_one:CARD', returnUrl: RETURN_URL, shippingAddress: ADDRESS },
      }),
      201,
    );
    step('start');
    const done = ok(await simulate(buyer, start.paymentId, 'APPROVE'));
    if (!done.orderId) throw new Error(`no order: ${JSON.stringify(done)}`);
    step('approve');
  };
  await purchase(() => {});
  const counter = statementCounter(svc.services.db.$client);
  const counted: PurchaseCount[] = [];
  for (let run = 0; run < runs; run++) {
    const first = { ...counter };
    let last = first;
    const steps: Partial<PurchaseCount> = {};
    await purchase((name) => {
      steps[name] = since(counter, last);
      last = { ...counter };
    });
    counted.push({ ...(steps as Omit<PurchaseCount, 'total'>), total: since(counter, first) });
  }
  const sheet = least(counted.map((c) => c.sheet));
  const start = least(counted.map((c) => c.start));
  const approve = least(counted.map((c) => c.approve));
  return {
    sheet,
    start,
    approve,
    total: { statements: sheet.statements + start.statements + approve.statements, roundTrips: sheet.roundTrips + start.roundTrips + approve.roundTrips },
  };
}
