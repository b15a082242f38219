import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import { transaction } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { sendMail } from '../../server/mail.js';
import type { Services } from '../../server/services.js';
import { findStore, membersInRoles } from '../stores/index.js';
import type { Pg, ProviderFailureInput } from './gateway.js';
import { PG_NAMES, defaultSettings, storeRouting, type ProviderRow } from './routing.js';
import { paymentProviderFailures, paymentProviders, paymentSettings } from './schema.js';

const DAY = 86_400_000;
const WARNING_THRESHOLD = 3;

/**
 * Live-gate conditions SANDBOX_PAYMENT / SANDBOX_REFUND: the first success with test keys is kept. A gateway
 * made from the routing hands on the provider row it read (`known`), sparing the routing's version read.
 */
export async function recordSandboxSuccess(services: Services, storeId: string, pg: Pg, kind: 'PAYMENT' | 'REFUND', known?: ProviderRow | null) {
  // Only the first success is recorded: the cached routing tells without a query whether it happened.
  const row = known ?? (await storeRouting(services.db, storeId)).providers.find((p) => p.provider === pg)?.row;
  if (!row || (kind === 'PAYMENT' ? row.sandboxPaymentAt : row.sandboxRefundAt) !== null) return;
  const now = services.clock.now();
  const column = kind === 'PAYMENT' ? paymentProviders.sandboxPaymentAt : paymentProviders.sandboxRefundAt;
  // Guarded: a row read a moment ago may have been marked meanwhile, and the first success stays the one kept.
  await services.db
    .update(paymentProviders)
    .set(kind === 'PAYMENT' ? { sandboxPaymentAt: now } : { sandboxRefundAt: now })
    .where(and(eq(paymentProviders.id, row.id), isNull(column)))
    .run();
}

export interface ProviderWarning {
  provider: Pg;
  method: string;
  easyPayProvider: string | null;
  code: string;
  count: number;
  lastAt: string;
  message: string;
}

/**
 * Repeated configuration failures (spec 01 §5.5): 3 or more of the same provider, method and easy-pay
 * provider within 24 hours show a warning, which clears 24 hours after the failures stop.
 */
export async function providerWarnings(services: Pick<Services, 'db'>, storeId: string, now: number): Promise<ProviderWarning[]> {
  const rows = await services.db
    .select()
    .from(paymentProviderFailures)
    .where(and(eq(paymentProviderFailures.storeId, storeId), gt(paymentProviderFailures.at, now - 2 * DAY)))
    .orderBy(paymentProviderFailures.at)
    .all();
  const groups = new Map<string, typeof rows>();
  for (const r of rows) {
    const key = `${r.provider}:${r.method}:${r.easyPayProvider ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const warnings: ProviderWarning[] = [];
  for (const group of groups.values()) {
    const last = group[group.length - 1];
    if (last.at <= now - DAY) continue;
    const count = group.filter((r) => r.at > last.at - DAY).length;
    if (count < WARNING_THRESHOLD) continue;
    warnings.push({
      provider: last.provider,
      method: last.method,
      easyPayProvider: last.easyPayProvider,
      code: last.code,
      count,
      lastAt: isoAt(last.at),
      message: `${PG_NAMES[last.provider]} ${last.method}${last.easyPayProvider ? `(${last.easyPayProvider})` : ''} 결제가 결제사 설정 문제로 24시간 동안 ${count}번 실패했습니다. 키와 채널 설정을 확인하세요.`,
    });
  }
  return warnings;
}

/**
 * A payment failure caused by the store's gateway configuration. When it starts a warning, the owners
 * are mailed — at most once a day per store.
 */
export async function recordProviderFailure(services: Services, storeId: string, failure: ProviderFailureInput) {
  const { db } = services;
  const now = services.clock.now();
  await transaction(services.db, async () => {
    await db
      .delete(paymentProviderFailures)
      .where(and(eq(paymentProviderFailures.storeId, storeId), lt(paymentProviderFailures.at, now - 2 * DAY)))
      .run();
    await db
      .insert(paymentProviderFailures)
      .values({
        id: newId('pfail', now),
        storeId,
        provider: failure.pg,
        method: failure.method,
        easyPayProvider: failure.easyPayProvider ?? null,
        code: failure.code,
        at: now,
      })
      .run();
    const warnings = await providerWarnings(services, storeId, now);
    if (warnings.length === 0) return;
    const settings = await db.select().from(paymentSettings).where(eq(paymentSettings.storeId, storeId)).get();
    if (settings?.warningMailedAt && settings.warningMailedAt > now - DAY) return;
    if (settings) await db.update(paymentSettings).set({ warningMailedAt: now }).where(eq(paymentSettings.storeId, storeId)).run();
    else
      await db
        .insert(paymentSettings)
        .values({ ...defaultSettings(storeId, now), warningMailedAt: now })
        .run();
    const store = await findStore(db, storeId);
    const owners = await membersInRoles(db, storeId, ['OWNER']);
    for (const owner of owners) {
      await sendMail(services, {
        to: owner.email,
        subject: `[${store?.name ?? storeId}] 결제 설정 문제로 결제가 반복해서 실패하고 있습니다`,
        body: warnings.map((w) => w.message).join('\n'),
      });
    }
  });
}
