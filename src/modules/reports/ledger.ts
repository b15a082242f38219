import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { preparedFor } from '../../db/prepared.js';
import { salesDays } from './schema.js';
import type { MoneyMoved } from '../checkout/index.js';

const KST_MS = 9 * 3_600_000;
/** The Korean date of an instant, YYYY-MM-DD. */
export const kstDateOf = (ms: number) => new Date(ms + KST_MS).toISOString().slice(0, 10);

type SaleFact = MoneyMoved;

const q = preparedFor((db) => {
  const add = (paymentCount: number, refundCount: number) =>
    db
      .insert(salesDays)
      .values({
        storeId: sql.placeholder('storeId'),
        date: sql.placeholder('date'),
        pg: sql.placeholder('pg'),
        method: sql.placeholder('method'),
        testPayment: sql.placeholder('testPayment'),
        paymentCount,
        paymentAmount: paymentCount ? sql.placeholder('amount') : 0,
        refundCount,
        refundAmount: refundCount ? sql.placeholder('amount') : 0,
      } as never)
      .onConflictDoUpdate({
        target: [salesDays.storeId, salesDays.date, salesDays.pg, salesDays.method, salesDays.testPayment],
        set: paymentCount
          ? { paymentCount: sql`${salesDays.paymentCount} + 1`, paymentAmount: sql`${salesDays.paymentAmount} + excluded.payment_amount` }
          : { refundCount: sql`${salesDays.refundCount} + 1`, refundAmount: sql`${salesDays.refundAmount} + excluded.refund_amount` },
      })
      .prepare();
  return { payment: add(1, 0), refund: add(0, 1) };
});

const row = (f: SaleFact) => ({ storeId: f.storeId, date: kstDateOf(f.at), pg: f.pg, method: f.method, testPayment: f.testPayment ? 1 : 0, amount: f.amount });

/** An approval took money (also one canceled automatically afterwards: it counts on both sides), in the caller's transaction. */
export const countPayment = (db: Db, fact: SaleFact) => q(db).payment.run(row(fact));
/** The gateway finished a cash refund (a partial cancel is one refund), in the caller's transaction. */
export const countRefund = (db: Db, fact: SaleFact) => q(db).refund.run(row(fact));
