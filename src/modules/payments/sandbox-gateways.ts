import { and, eq, inArray, sql } from 'drizzle-orm';
import { transaction, type Db } from '../../db/client.js';
import { placeholderValue, preparedFor } from '../../db/prepared.js';
import { newId } from '../../db/ids.js';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import type { ConfirmResult, Gateway, GatewayFailure, LookupResult, Pg, SandboxOutcome, SandboxView } from './gateway.js';
import { recordProviderFailure, recordSandboxSuccess } from './records.js';
import type { CredentialRow, ProviderRow } from './routing.js';
import { sandboxGatewayPayments, type SecretFields } from './schema.js';

type SandboxRow = typeof sandboxGatewayPayments.$inferSelect;

/**
 * The sandbox gateways: what pg_one and pg_two do with test keys, simulated over our own ledger table
 * (no network). The buyer's side of the window is decided by `sandboxDecide`; confirm, cancel and
 * look-up then answer like the real server APIs would, including "the gateway's amount".
 */
const view = (row: SandboxRow): SandboxView => ({
  pgPaymentKey: row.pgPaymentKey,
  pg: row.provider,
  status: row.status,
  amount: row.amount,
  gatewayAmount: row.gatewayAmount,
  canceledAmount: row.canceledAmount,
  method: row.method,
  provider: row.easyPayProvider,
});

const t = sandboxGatewayPayments;
/** A window moved from `from` to a status in one statement, guarded by its current status; the row as changed. */
const moveFrom = (db: Db, from: SandboxRow['status'], set: Record<string, unknown>, owned = false) =>
  db
    .update(t)
    .set({ ...set, status: placeholderValue('status'), updatedAt: placeholderValue('now') } as never)
    .where(
      and(
        eq(t.pgPaymentKey, sql.placeholder('pgPaymentKey')),
        eq(t.status, from),
        owned
          ? and(eq(t.storeId, sql.placeholder('storeId')), eq(t.provider, sql.placeholder('pg')), eq(t.pgOrderId, sql.placeholder('pgOrderId')))
          : undefined,
      ),
    )
    .returning()
    .prepare();

const statements = preparedFor((db) => ({
  byKey: db
    .select()
    .from(sandboxGatewayPayments)
    .where(eq(sandboxGatewayPayments.pgPaymentKey, sql.placeholder('pgPaymentKey')))
    .prepare(),
  // The buyer's decision on a READY window (no transaction, no read first: the guard is in the statement). An
  // authorisation takes the amount the buyer paid (`amount`; null: the window's).
  decide: moveFrom(db, 'READY', {}),
  authorize: moveFrom(db, 'READY', { gatewayAmount: sql`coalesce(${sql.placeholder('amount')}, ${t.amount})` }),
  authorizeSlow: moveFrom(db, 'READY', { gatewayAmount: sql`coalesce(${sql.placeholder('amount')}, ${t.amount})`, slowConfirm: true }),
  // The service's confirm of an authorised window of this store's gateway and order.
  confirm: moveFrom(db, 'AUTHORIZED', {}, true),
}));

const load = (services: Services, pgPaymentKey: string) => statements(services.db).byKey.get({ pgPaymentKey });

async function update(services: Services, row: SandboxRow, change: Partial<SandboxRow>) {
  await services.db
    .update(sandboxGatewayPayments)
    .set({ ...change, updatedAt: services.clock.now() })
    .where(eq(sandboxGatewayPayments.pgPaymentKey, row.pgPaymentKey))
    .run();
}

/** Test keys fail their connection check only when their secret says so (there is no real merchant to ask). */
export function verifySandboxKeys(secrets: SecretFields): { ok: true } | { ok: false; code: string; message: string } {
  const secret = secrets.secretKey ?? secrets.apiSecret ?? '';
  return /invalid/i.test(secret) ? { ok: false, code: 'UNAUTHORIZED_KEY', message: '인증되지 않은 테스트 키입니다.' } : { ok: true };
}

const refused = (failure: GatewayFailure): ConfirmResult => ({ status: 'REFUSED', approvedAmount: 0, approvedMethod: null, pgTransactionId: null, failure });
const approved = (row: SandboxRow): ConfirmResult => ({
  status: 'APPROVED',
  approvedAmount: row.gatewayAmount,
  approvedMethod: row.method,
  pgTransactionId: row.pgPaymentKey,
});

/**
 * The dev-only switch `/_dev/v1/payment-settings/sandbox-window-failure`: the next sandbox window of a
 * store's gateway cannot be prepared, as when a gateway is down. Kept in the process (svc dev is one).
 */
const failingWindows = new WeakMap<Services, Set<string>>();

export function failNextSandboxWindow(services: Services, storeId: string, pg: Pg) {
  const failing = failingWindows.get(services) ?? new Set<string>();
  failingWindows.set(services, failing);
  failing.add(`${storeId}:${pg}`);
}

/** Whether this window is the one told to fail; the switch then goes back off. */
const takeWindowFailure = (services: Services, storeId: string, pg: Pg) => failingWindows.get(services)?.delete(`${storeId}:${pg}`) ?? false;

export function sandboxGateway(services: Services, storeId: string, pg: Pg, credential: CredentialRow, provider?: ProviderRow | null): Gateway {
  const own = async (pgPaymentKey: string) => {
    const row = await load(services, pgPaymentKey);
    return row && row.storeId === storeId && row.provider === pg ? row : undefined;
  };
  return {
    pg,
    sandbox: true,
    credentialId: credential.id,
    async prepareWindow(input) {
      if (takeWindowFailure(services, storeId, pg)) {
        await recordProviderFailure(services, storeId, { pg, method: input.method, easyPayProvider: input.provider, code: 'WINDOW_PREPARE_FAILED' });
        throw fail(503, 'PAYMENT_PROVIDER_UNAVAILABLE', { optionUnavailable: true, pg, method: input.method, reason: 'WINDOW_PREPARE_FAILED' });
      }
      const now = services.clock.now();
      const pgPaymentKey = newId(pg === 'pg_one' ? 'sbx1' : 'sbx2', now);
      await services.db
        .insert(sandboxGatewayPayments)
        .values({
          pgPaymentKey,
          storeId,
          provider: pg,
          credentialId: credential.id,
          paymentId: input.paymentId,
          pgOrderId: input.pgOrderId,
          orderName: input.orderName,
          method: input.method,
          easyPayProvider: input.provider ?? null,
          amount: input.amount,
          gatewayAmount: input.amount,
          canceledAmount: 0,
          status: 'READY',
          slowConfirm: false,
          createdAt: now,
          updatedAt: now,
        })
        .run();
      return { windowUrl: `${services.config.origin}/pay/${input.paymentId}`, pgPaymentKey, sandbox: true, credentialId: credential.id };
    },
    async confirm(input) {
      // Like the real APIs, a confirm that times out still approves: the answer just arrives late.
      const confirmed = await statements(services.db).confirm.get({
        pgPaymentKey: input.pgPaymentKey,
        status: 'APPROVED',
        now: services.clock.now(),
        storeId,
        pg,
        pgOrderId: input.pgOrderId,
      });
      if (confirmed) {
        // Only the first success is recorded (a marker, not money): after the move, outside any transaction.
        await recordSandboxSuccess(services, storeId, pg, 'PAYMENT', provider);
        if (confirmed.slowConfirm) return { status: 'CONFIRMING', approvedAmount: 0, approvedMethod: null, pgTransactionId: null };
        return approved(confirmed);
      }
      const row = await own(input.pgPaymentKey);
      if (!row || row.pgOrderId !== input.pgOrderId)
        return refused({ code: 'NOT_FOUND_PAYMENT_SESSION', message: '결제 정보를 찾을 수 없습니다.', optionUnavailable: false });
      switch (row.status) {
        case 'APPROVED':
        case 'PARTIALLY_CANCELED':
        case 'CANCELED':
          return approved(row);
        // AUTHORIZED: the buyer's decision came after the move above looked; it was not authenticated then.
        case 'AUTHORIZED':
        case 'READY':
          return refused({ code: 'NOT_AUTHENTICATED', message: '구매자 인증이 끝나지 않은 결제입니다.', optionUnavailable: false });
        case 'WINDOW_CLOSED':
          return refused({ code: 'PAY_PROCESS_CANCELED', message: '구매자가 결제를 취소했습니다.', optionUnavailable: false });
        case 'WINDOW_ERROR':
          return refused({ code: 'INVALID_CHANNEL', message: '결제창을 열 수 없습니다. 상점의 결제 설정을 확인하세요.', optionUnavailable: true });
        case 'REFUSED':
          return refused({ code: 'REJECT_CARD_PAYMENT', message: '카드사에서 결제를 거절했습니다.', optionUnavailable: false });
        case 'EXPIRED':
          return refused({ code: 'EXPIRED_PAYMENT_WINDOW', message: '새 결제창이 열려 이 결제창은 닫혔습니다.', optionUnavailable: false });
      }
    },
    async expireWindow(input) {
      const row = await own(input.pgPaymentKey);
      if (!row || row.pgOrderId !== input.pgOrderId || row.status !== 'READY') return 'ALREADY_DECIDED';
      await update(services, row, { status: 'EXPIRED' });
      return 'EXPIRED';
    },
    async cancel(input) {
      const row = await own(input.pgTransactionId);
      if (!row || !['APPROVED', 'PARTIALLY_CANCELED'].includes(row.status)) {
        return {
          status: 'FAILED',
          canceledAmount: 0,
          failure: { code: 'NOT_CANCELABLE_PAYMENT', message: '취소할 수 없는 결제입니다.', optionUnavailable: false },
        };
      }
      if (row.refundHeld) {
        await update(services, row, { refundHeld: false });
        return {
          status: 'HELD',
          canceledAmount: 0,
          failure: { code: 'REFUND_HELD', message: '가맹점 잔액이 부족해 지금은 환불할 수 없습니다. 정산 뒤 다시 처리하세요.', optionUnavailable: false },
        };
      }
      const left = row.gatewayAmount - row.canceledAmount;
      if (!Number.isInteger(input.amount) || input.amount <= 0 || input.amount > left) {
        return {
          status: 'FAILED',
          canceledAmount: 0,
          failure: { code: 'NOT_CANCELABLE_AMOUNT', message: `취소할 수 있는 금액은 ${left}원입니다.`, optionUnavailable: false },
        };
      }
      const canceledAmount = row.canceledAmount + input.amount;
      await transaction(services.db, async () => {
        await update(services, row, { canceledAmount, status: canceledAmount === row.gatewayAmount ? 'CANCELED' : 'PARTIALLY_CANCELED' });
        await recordSandboxSuccess(services, storeId, pg, 'REFUND', provider);
      });
      return { status: 'CANCELED', canceledAmount: input.amount };
    },
    async lookup(input) {
      const row = await own(input.pgPaymentKey);
      if (!row || row.pgOrderId !== input.pgOrderId) {
        return { status: 'NOT_FOUND', amount: 0, approvedAmount: 0, canceledAmount: 0, approvedMethod: null, pgTransactionId: null };
      }
      const status: LookupResult['status'] = (
        {
          READY: 'READY',
          AUTHORIZED: 'READY',
          APPROVED: 'APPROVED',
          PARTIALLY_CANCELED: 'PARTIALLY_CANCELED',
          CANCELED: 'CANCELED',
          REFUSED: 'REFUSED',
          WINDOW_CLOSED: 'REFUSED',
          WINDOW_ERROR: 'REFUSED',
          EXPIRED: 'REFUSED',
        } as const
      )[row.status];
      const paid = ['APPROVED', 'PARTIALLY_CANCELED', 'CANCELED'].includes(row.status);
      return {
        status,
        amount: row.amount,
        approvedAmount: paid ? row.gatewayAmount : 0,
        canceledAmount: row.canceledAmount,
        approvedMethod: paid ? row.method : null,
        pgTransactionId: paid ? row.pgPaymentKey : null,
      };
    },
  };
}

/** The buyer's action in the sandbox window (the pay page and /_dev/v1/payments/{paymentId}/simulate). */
export async function sandboxDecide(
  services: Services,
  pgPaymentKey: string,
  outcome: SandboxOutcome,
  options: { amount?: number } = {},
): Promise<SandboxView> {
  if (options.amount !== undefined && (!Number.isInteger(options.amount) || options.amount < 0)) {
    const row = await load(services, pgPaymentKey);
    if (!row) throw fail(404, 'SANDBOX_PAYMENT_NOT_FOUND');
    if (row.status !== 'READY') throw fail(409, 'SANDBOX_PAYMENT_DECIDED', { status: row.status });
    throw fail(400, 'VALIDATION_FAILED');
  }
  const q = statements(services.db);
  const [statement, status] = (
    {
      APPROVE: [q.authorize, 'AUTHORIZED'],
      CONFIRMING: [q.authorizeSlow, 'AUTHORIZED'],
      REFUSE: [q.decide, 'REFUSED'],
      CANCEL: [q.decide, 'WINDOW_CLOSED'],
      WINDOW_ERROR: [q.decide, 'WINDOW_ERROR'],
    } as const
  )[outcome];
  // The decision is one guarded statement; only a window error has a second write, the provider's failure.
  const decide = async () => {
    const row = await statement.get({ pgPaymentKey, status, now: services.clock.now(), amount: options.amount ?? null });
    if (!row) {
      const found = await load(services, pgPaymentKey);
      if (!found) throw fail(404, 'SANDBOX_PAYMENT_NOT_FOUND');
      throw fail(409, 'SANDBOX_PAYMENT_DECIDED', { status: found.status });
    }
    if (outcome === 'WINDOW_ERROR') {
      await recordProviderFailure(services, row.storeId, {
        pg: row.provider,
        method: row.method,
        easyPayProvider: row.easyPayProvider,
        code: 'INVALID_CHANNEL',
      });
    }
    return view(row);
  };
  return outcome === 'WINDOW_ERROR' ? await transaction(services.db, decide) : await decide();
}

/** `/_dev` outcome REFUND_HELD: the next refund of a paid sandbox payment is answered HELD (a merchant short of balance). */
export async function holdSandboxRefunds(services: Services, paymentId: string) {
  const changed = (
    await services.db
      .update(sandboxGatewayPayments)
      .set({ refundHeld: true, updatedAt: services.clock.now() })
      .where(and(eq(sandboxGatewayPayments.paymentId, paymentId), inArray(sandboxGatewayPayments.status, ['APPROVED', 'PARTIALLY_CANCELED'])))
      .run()
  ).changes;
  if (changed === 0) throw fail(409, 'PAYMENT_WINDOW_NOT_OPEN', { reason: 'NOT_PAID' });
}
