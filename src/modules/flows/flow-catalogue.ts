// The store's flows and their published versions: defaults, lookup, definitions, and which flow a product's items follow.
import { and, asc, desc, eq, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { preparedFor } from '../../db/prepared.js';
import { fail } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import { requireOwned } from '../../server/tenancy.js';
import { findCategory, type Fulfillment } from '../catalog/index.js';
import { DEFAULT_DEFINITIONS, type Definition, type FlowKind } from './definition.js';
import { flows, flowVersions, orderItemFlows } from './schema.js';

defineMessages({
  FLOW_NOT_FOUND: '주문 흐름을 찾을 수 없습니다.',
  FLOW_VERSION_NOT_FOUND: '주문 흐름의 그 버전을 찾을 수 없습니다.',
  FLOW_RUN_NOT_FOUND: '흐름 실행 기록을 찾을 수 없습니다.',
  ORDER_ITEM_NOT_FOUND: '주문 상품을 찾을 수 없습니다.',
  ACTION_NOT_AVAILABLE: '지금 상태에서 할 수 없는 작업입니다. details.key와 details.reason을 확인하세요.',
  FLOW_MOVE_NOT_ALLOWED: '조건이 맞지 않아 상태를 옮길 수 없습니다. details.key와 details.reason을 확인하세요.',
  FLOW_ACTION_INPUT_INVALID: '작업 입력이 올바르지 않습니다. details.issues를 확인하세요.',
  FLOW_EVENT_NOT_ACCEPTED: '지금 상태는 이 이벤트를 받지 않습니다.',
  FLOW_ASSIGNMENT_RULES_RETIRED: '흐름 배정 규칙 API는 없어졌습니다. 상품이나 카테고리의 flowId를 쓰세요.',
});

export type FlowRow = typeof flows.$inferSelect;

const q = preparedFor((db) => ({
  flowById: db
    .select()
    .from(flows)
    .where(eq(flows.id, sql.placeholder('id')))
    .prepare(),
  defaultFlow: db
    .select()
    .from(flows)
    .where(and(eq(flows.storeId, sql.placeholder('storeId')), eq(flows.defaultKey, sql.placeholder('kind'))))
    .prepare(),
  version: db
    .select()
    .from(flowVersions)
    .where(and(eq(flowVersions.flowId, sql.placeholder('flowId')), eq(flowVersions.version, sql.placeholder('version'))))
    .prepare(),
}));

/**
 * The store's two default flows (SHIPPING, MANUAL), version 1 each. Run when a store is created and, for
 * stores made before flows existed, on first use: a unique index keeps concurrent first uses to one each.
 */
export async function ensureDefaultFlows(db: Db, storeId: string, now: number) {
  for (const kind of ['SHIPPING', 'MANUAL'] as const) {
    if (await q(db).defaultFlow.get({ storeId, kind })) continue;
    const { name, definition } = DEFAULT_DEFINITIONS[kind];
    const id = newId('flw', now);
    const inserted = await db
      .insert(flows)
      .values({
        id,
        storeId,
        name,
        kind,
        isDefault: true,
        progression: definition.progression,
        publishedVersion: 1,
        draft: null,
        draftGraph: null,
        defaultKey: kind,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .run();
    if (inserted.changes === 1) await db.insert(flowVersions).values({ flowId: id, version: 1, storeId, definition, graph: null, publishedAt: now }).run();
  }
}

/** A flow with its first published version (the custom-flow API of a later slice publishes more). */
export async function insertFlow(db: Db, storeId: string, now: number, input: { name: string; kind: FlowKind; definition: Definition }): Promise<FlowRow> {
  const row: FlowRow = {
    id: newId('flw', now),
    storeId,
    name: input.name,
    kind: input.kind,
    isDefault: false,
    progression: input.definition.progression,
    publishedVersion: 1,
    draft: null,
    draftGraph: null,
    defaultKey: null,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(flows).values(row).run();
  await db.insert(flowVersions).values({ flowId: row.id, version: 1, storeId, definition: input.definition, graph: null, publishedAt: now }).run();
  return row;
}

/** The store's default flow of a kind; `ensureDefaultFlows` makes it exist. */
export const findDefaultFlow = (db: Db, storeId: string, kind: FlowKind) => q(db).defaultFlow.get({ storeId, kind });

export const loadFlow = async (db: Db, storeId: string, flowId: string) => requireOwned(await q(db).flowById.get({ id: flowId }), storeId, 'FLOW_NOT_FOUND');

export async function listFlows(db: Db, storeId: string, now: number) {
  await ensureDefaultFlows(db, storeId, now);
  // The defaults first (SHIPPING, then MANUAL), then the store's own in creation order.
  return db
    .select()
    .from(flows)
    .where(eq(flows.storeId, storeId))
    .orderBy(desc(flows.isDefault), sql`${flows.defaultKey} = 'MANUAL'`, asc(flows.createdAt), asc(flows.id))
    .all();
}

/** Published definitions never change: kept per database once read. */
const definitions = new WeakMap<Db, Map<string, Definition>>();
export async function definitionOf(db: Db, flowId: string, version: number): Promise<Definition> {
  let perDb = definitions.get(db);
  if (!perDb) definitions.set(db, (perDb = new Map()));
  const key = `${flowId}:${version}`;
  let def = perDb.get(key);
  if (!def) {
    const row = await q(db).version.get({ flowId, version });
    if (!row) throw fail(404, 'FLOW_VERSION_NOT_FOUND', { flowId, version });
    perDb.set(key, (def = row.definition));
  }
  return def;
}

export async function loadVersion(db: Db, storeId: string, flowId: string, version: number) {
  await loadFlow(db, storeId, flowId);
  const row = await q(db).version.get({ flowId, version });
  if (!row) throw fail(404, 'FLOW_VERSION_NOT_FOUND', { flowId, version });
  return row;
}

/** Core statuses an item's life in its flow ends in: such items no longer run on their version. */
export const ENDED_CORE_STATUSES = ['PURCHASE_DECIDED', 'CANCELED', 'RETURNED', 'EXCHANGED'];

export const runningItemCount = async (db: Db, flowId: string, version: number) =>
  (await db
    .select({ n: sql<number>`count(*)` })
    .from(orderItemFlows)
    .where(and(eq(orderItemFlows.flowId, flowId), eq(orderItemFlows.version, version), notInArray(orderItemFlows.coreStatus, ENDED_CORE_STATUSES)))
    .get())!.n;

/** The distinct states the running items of a version are in. */
export const runningStates = async (db: Db, flowId: string, version: number) =>
  (
    await db
      .selectDistinct({ state: orderItemFlows.state })
      .from(orderItemFlows)
      .where(and(eq(orderItemFlows.flowId, flowId), eq(orderItemFlows.version, version), notInArray(orderItemFlows.coreStatus, ENDED_CORE_STATUSES)))
      .all()
  ).map((r) => r.state);

export const presentFlow = (f: FlowRow) => ({
  flowId: f.id,
  name: f.name,
  kind: f.kind,
  isDefault: f.isDefault,
  progression: f.progression,
  publishedVersion: f.publishedVersion,
  draft: f.draft,
  draftGraph: f.draftGraph,
  createdAt: isoAt(f.createdAt),
  updatedAt: isoAt(f.updatedAt),
});

export type FlowSource = 'PRODUCT' | 'CATEGORY' | 'PLATFORM';

export const kindOf = (fulfillment: Pick<Fulfillment, 'type'>): FlowKind => (fulfillment.type === 'SHIPPING' ? 'SHIPPING' : 'MANUAL');

/**
 * The flow a product's items follow (spec 02 §4.4): its own `flowId`, else its lowest-level category's,
 * else the store default of its fulfilment kind; the flow's published version is the one fixed at payment.
 */
export async function resolveFlow(
  db: Db,
  product: { storeId: string; flowId: string | null; categoryId: string | null; fulfillment: Pick<Fulfillment, 'type'> },
  now: number,
) {
  const published = async (flowId: string | null) => {
    const flow = flowId ? await q(db).flowById.get({ id: flowId }) : undefined;
    return flow && flow.storeId === product.storeId && flow.publishedVersion !== null ? flow : undefined;
  };
  const own = await published(product.flowId);
  if (own) return { flow: own, version: own.publishedVersion!, source: 'PRODUCT' as FlowSource };
  const categoryFlowId = product.categoryId ? ((await findCategory(db, product.categoryId))?.flowId ?? null) : null;
  const inherited = await published(categoryFlowId);
  if (inherited) return { flow: inherited, version: inherited.publishedVersion!, source: 'CATEGORY' as FlowSource };
  const kind = kindOf(product.fulfillment);
  // The store's default flows are made once: a store that has the one asked for has them (one read, not three).
  let fallback = await q(db).defaultFlow.get({ storeId: product.storeId, kind });
  if (!fallback) {
    await ensureDefaultFlows(db, product.storeId, now);
    fallback = (await q(db).defaultFlow.get({ storeId: product.storeId, kind }))!;
  }
  return { flow: fallback, version: fallback.publishedVersion!, source: 'PLATFORM' as FlowSource };
}
