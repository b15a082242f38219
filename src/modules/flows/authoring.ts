import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { isoAt } from '../../db/clock.js';
import { newId } from '../../db/ids.js';
import { fail, validationFailed } from '../../server/errors.js';
import { defineMessages } from '../../server/messages.js';
import type { Services } from '../../server/services.js';
import { sealSecrets } from '../payments/index.js';
import { appLookup } from './app-channels.js';
import { checkDefinition, type CheckResult } from './check.js';
import { DEFAULT_DEFINITIONS, durationMs, type Definition, type FlowKind } from './definition.js';
import type { Actor } from './engine.js';
import { findPreset } from './presets.js';
import { flowRuns, flows, flowSecrets, flowVersions, type Graph } from './schema.js';
import { definitionOf, loadFlow, loadVersion, runningStates, type FlowRow } from './flow-catalogue.js';
import { itemFacts, loadItemFlow } from './item-flows.js';
import { migrateItems } from './item-migration.js';
import { SIMULATION_BUDGET, VirtualItem, type TraceEntry } from './simulate.js';

/**
 * Custom flows and their authoring (issue 11, second slice): create from a preset or a definition, save
 * drafts, check, simulate and replay them on the engine's own `step`, publish versions, move running
 * items between versions, and keep flow secrets.
 */

defineMessages({
  FLOW_DEFAULT_LOCKED: '기본 흐름은 저장, 게시, 이전할 수 없습니다. 새 흐름을 만들어 쓰세요.',
  FLOW_PROGRESSION_MISMATCH: '진행 단위(ITEM/ORDER)가 다른 버전으로는 옮길 수 없습니다. details.from과 details.to를 확인하세요.',
  PUBLISH_BLOCKED: '점검에서 막는 오류가 있어 게시할 수 없습니다. details.errors를 확인하세요.',
  FLOW_PRESET_NOT_FOUND: '그런 흐름 프리셋이 없습니다.',
  FLOW_SECRET_NOT_FOUND: '그런 이름의 흐름 비밀값이 없습니다.',
  FLOW_EVENT_APP_FORBIDDEN: '앱 이벤트는 그 앱의 설치 토큰으로, 앱 manifest의 flow.events에 있는 이름만 보낼 수 있습니다.',
  FLOW_SIMULATION_BUDGET_EXCEEDED: '식 계산이 시뮬레이션 한 번의 작업 한도를 넘었습니다. 단계를 줄이거나 식을 단순하게 하세요. details.step을 확인하세요.',
});

/** Saving, publishing and migrating refuse the store's default flows (spec 02 §4.4). */
function editable(flow: FlowRow): FlowRow {
  if (flow.isDefault) throw fail(409, 'FLOW_DEFAULT_LOCKED', { flowId: flow.id });
  return flow;
}

export async function createFlow(
  db: Db,
  storeId: string,
  now: number,
  input: { name: string; kind: FlowKind; presetKey?: string; definition?: Definition; graph?: Graph },
): Promise<FlowRow> {
  let draft = input.definition;
  if (input.presetKey !== undefined) {
    const preset = findPreset(input.presetKey);
    if (!preset) throw fail(404, 'FLOW_PRESET_NOT_FOUND', { presetKey: input.presetKey });
    draft = preset.definition;
  }
  // Neither: the default flow of the kind, to edit from.
  draft ??= DEFAULT_DEFINITIONS[input.kind].definition;
  const row: FlowRow = {
    id: newId('flw', now),
    storeId,
    name: input.name,
    kind: input.kind,
    isDefault: false,
    progression: draft.progression,
    publishedVersion: null,
    draft,
    draftGraph: input.graph ?? null,
    defaultKey: null,
    createdAt: now,
    updatedAt: now,
  };
  await db.insert(flows).values(row).run();
  return row;
}

export async function saveDraft(db: Db, storeId: string, flowId: string, now: number, input: { definition: Definition; graph?: Graph }): Promise<FlowRow> {
  const flow = editable(await loadFlow(db, storeId, flowId));
  const graph = input.graph === undefined ? flow.draftGraph : input.graph;
  await db.update(flows).set({ draft: input.definition, draftGraph: graph, updatedAt: now }).where(eq(flows.id, flow.id)).run();
  return { ...flow, draft: input.definition, draftGraph: graph, updatedAt: now };
}

/** What check, simulate and replay work on: the draft, or the published definition when there is none (default flows). */
export async function workingDefinition(db: Db, flow: FlowRow): Promise<Definition> {
  if (flow.draft) return flow.draft;
  return definitionOf(db, flow.id, flow.publishedVersion!);
}

/** What a definition may refer to in its store: installed apps and saved flow secrets. */
const storeCheck = async (db: Db, storeId: string, def: Definition) => checkDefinition(def, await appLookup(db, storeId), await secretNames(db, storeId));

export const checkFlow = async (db: Db, flow: FlowRow): Promise<CheckResult> => storeCheck(db, flow.storeId, await workingDefinition(db, flow));

/**
 * Why publishing would fail, thrown as the API error: a default flow, no draft, or blocking check errors
 * (409 PUBLISH_BLOCKED with `details.errors`). Run before dry run and approval requests too (spec 01 §5.6).
 */
export async function assertPublishable(db: Db, storeId: string, flowId: string): Promise<{ flow: FlowRow; check: CheckResult }> {
  const flow = editable(await loadFlow(db, storeId, flowId));
  if (!flow.draft)
    throw fail(409, 'PUBLISH_BLOCKED', { errors: [{ code: 'NO_DRAFT', path: 'draft', message: '게시할 초안이 없습니다. 먼저 초안을 저장하세요.' }] });
  const check = await storeCheck(db, storeId, flow.draft);
  if (check.errors.length) throw fail(409, 'PUBLISH_BLOCKED', { errors: check.errors, warnings: check.warnings });
  return { flow, check };
}

/** The draft becomes the next version; new items follow it from their payment on, running ones stay on theirs. */
export async function publish(db: Db, storeId: string, flowId: string, now: number) {
  const { flow } = await assertPublishable(db, storeId, flowId);
  const version = (flow.publishedVersion ?? 0) + 1;
  const definition = flow.draft!;
  await db.insert(flowVersions).values({ flowId: flow.id, version, storeId, definition, graph: flow.draftGraph, publishedAt: now }).run();
  await db
    .update(flows)
    .set({ publishedVersion: version, progression: definition.progression, draft: null, updatedAt: now })
    .where(eq(flows.id, flow.id))
    .run();
  return loadVersion(db, storeId, flow.id, version);
}

/**
 * Moves the running items of `fromVersion` onto `version`. `stateMap` names new states for old ones; an
 * unnamed state keeps its key when the new version has it. Progression units must match (409
 * FLOW_PROGRESSION_MISMATCH); every running item's state must land somewhere (400, field `stateMap.<STATE>`).
 */
export interface MigrationInput {
  version: number;
  fromVersion: number;
  stateMap: Record<string, string>;
}

export async function migrate(db: Db, storeId: string, flowId: string, now: number, input: MigrationInput) {
  const { flow, stateOf } = await planMigration(db, storeId, flowId, input);
  const movedItemCount = await migrateItems(db, now, flow.id, input.fromVersion, input.version, stateOf);
  return { flowId: flow.id, fromVersion: input.fromVersion, toVersion: input.version, movedItemCount };
}

/** Where each running item of the old version goes, or the API error the migration would fail with (also run before dry run and approval). */
export async function planMigration(db: Db, storeId: string, flowId: string, input: MigrationInput) {
  const flow = editable(await loadFlow(db, storeId, flowId));
  const to = (await loadVersion(db, storeId, flow.id, input.version)).definition;
  const from = (await loadVersion(db, storeId, flow.id, input.fromVersion)).definition;
  if (input.fromVersion === input.version) throw validationFailed([{ field: 'fromVersion', code: 'SAME_VERSION', message: '옮길 버전과 같은 버전입니다.' }]);
  if (from.progression !== to.progression) throw fail(409, 'FLOW_PROGRESSION_MISMATCH', { from: from.progression, to: to.progression });
  const problems = Object.entries(input.stateMap).flatMap(([old, next]) => [
    ...(from.states[old] ? [] : [{ field: `stateMap.${old}`, code: 'UNKNOWN_STATE', message: `버전 ${input.fromVersion}에 없는 상태입니다.` }]),
    ...(to.states[next] ? [] : [{ field: `stateMap.${old}`, code: 'UNKNOWN_STATE', message: `버전 ${input.version}에 없는 상태 ${next}입니다.` }]),
  ]);
  const stateOf = (state: string) => input.stateMap[state] ?? state;
  for (const state of await runningStates(db, flow.id, input.fromVersion)) {
    if (!to.states[stateOf(state)])
      problems.push({ field: `stateMap.${state}`, code: 'STATE_UNMAPPED', message: `${state}에 있는 항목이 버전 ${input.version}에서 갈 상태를 정하세요.` });
  }
  if (problems.length) throw validationFailed(problems);
  return { flow, stateOf };
}

// ---------------------------------------------------------------------------------------------------
// Simulate and replay

export type SimulationStep =
  { action: string; input?: Record<string, unknown>; actor?: Actor } | { event: string; input?: Record<string, unknown> } | { advance: string };

/** A made-up paid item for simulations; `orderItem` fields given by the seller replace its own. */
function sampleFacts(flow: FlowRow, now: number, orderItem: Record<string, unknown>) {
  const item = {
    orderItemId: 'oi_simulated',
    productId: 'prd_simulated',
    optionId: null,
    productName: '시뮬레이션 상품',
    optionValues: [],
    quantity: 1,
    unitPrice: 10000,
    amount: 10000,
    fulfillmentType: flow.kind === 'SHIPPING' ? 'SHIPPING' : 'MANUAL',
    stay: null,
    ...orderItem,
  };
  return {
    order: { orderId: 'ord_simulated', orderNo: 'SIMULATED', status: 'PAID', testPayment: true, guest: false, orderedAt: isoAt(now), totalAmount: item.amount },
    item,
    flow: { flowId: flow.id, version: null },
  };
}

/**
 * A run whose expressions used up their shared budget is refused whole (422, `details.step` the step or
 * recorded run it ran out at, -1 for the start): a trace cut short by work would read like the flow's own outcome.
 */
function withinBudget(item: VirtualItem, step: number) {
  if (item.meter.exhausted) throw fail(422, 'FLOW_SIMULATION_BUDGET_EXCEEDED', { budget: SIMULATION_BUDGET, step });
}

/** Other requests get their turn between the steps of a long simulation. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function simulateFlow(db: Db, flow: FlowRow, now: number, input: { orderItem?: Record<string, unknown>; steps: SimulationStep[] }) {
  const item = new VirtualItem(await workingDefinition(db, flow), sampleFacts(flow, now, input.orderItem ?? {}), now);
  item.start();
  withinBudget(item, -1);
  for (const [index, s] of input.steps.entries()) {
    if (item.full) break;
    await nextTurn();
    if ('advance' in s) item.advanceTo(item.clock + durationMs(s.advance));
    else if ('action' in s) item.action(s.action, s.input ?? {}, s.actor);
    else item.event(s.event, s.input ?? {});
    withinBudget(item, index);
  }
  return { trace: item.trace, finalState: item.finalState(), truncated: item.full };
}

/**
 * The item's recorded runs re-run under the working definition on a virtual clock set to each run's
 * time: timers of the draft fire when they come due, actions and events run with their recorded input.
 * Each recorded run is compared with where the draft is after it; the first difference is the divergence.
 */
export async function replayItem(db: Db, flow: FlowRow, orderItemId: string, now: number) {
  const { row, item, order } = await loadItemFlow(db, flow.storeId, orderItemId, now);
  if (row.flowId !== flow.id) throw validationFailed([{ field: 'orderItemId', code: 'OTHER_FLOW', message: `이 항목은 다른 흐름(${row.flowId})을 따릅니다.` }]);
  const runs = await db.select().from(flowRuns).where(eq(flowRuns.orderItemId, row.orderItemId)).orderBy(asc(flowRuns.at), asc(flowRuns.id)).all();
  const startAt = runs[0]?.at ?? row.enteredAt;
  const definition = await workingDefinition(db, flow);
  const virtual = new VirtualItem(definition, itemFacts(row, order, item), startAt);
  const steps: {
    runId: string | null;
    at: string;
    trigger: Record<string, unknown>;
    recorded: { to: string; coreStatus: string };
    draft: { to: string; coreStatus: string; refusal: TraceEntry['refusal'] };
    same: boolean;
  }[] = [];
  const compare = (
    runId: string | null,
    at: number,
    trigger: Record<string, unknown>,
    recorded: { to: string; coreStatus: string },
    refusal: TraceEntry['refusal'] = null,
  ) => {
    const draft = { to: virtual.state, coreStatus: virtual.coreStatus, refusal };
    steps.push({ runId, at: isoAt(at), trigger, recorded, draft, same: draft.to === recorded.to && draft.coreStatus === recorded.coreStatus && !refusal });
  };

  // Items paid before flows existed have no start run: they began in the initial state.
  const first = virtual.start();
  const startRun = runs[0]?.trigger.kind === 'start' ? runs[0] : null;
  compare(
    startRun?.id ?? null,
    startAt,
    { kind: 'start' },
    startRun ? { to: startRun.to, coreStatus: startRun.coreStatus } : { to: first.to, coreStatus: first.coreStatus },
  );
  withinBudget(virtual, -1);
  for (const [index, run] of (startRun ? runs.slice(1) : runs).entries()) {
    const recorded = { to: run.to, coreStatus: run.coreStatus };
    const t = run.trigger;
    const fired = virtual.advanceTo(run.at);
    if (t.kind === 'migration') {
      // A move between versions is no step of the flow: the draft follows it when it has the state.
      if (definition.states[run.to]) virtual.jump(run.to);
      compare(run.id, run.at, t, recorded);
    } else if (t.kind === 'timer') {
      compare(run.id, run.at, t, recorded, fired.length ? null : { code: 'NO_TIMER_DUE' });
    } else if (t.kind === 'action') {
      const actor = run.actor.type === 'BUYER' ? 'BUYER' : 'SELLER';
      compare(run.id, run.at, t, recorded, virtual.action(t.key, run.input, actor).refusal);
    } else if (t.kind === 'event') {
      compare(run.id, run.at, t, recorded, virtual.event(t.name, run.input).refusal);
    }
    withinBudget(virtual, index);
  }
  const divergence = steps.find((s) => !s.same) ?? null;
  return {
    orderItemId: row.orderItemId,
    flowId: flow.id,
    recordedVersion: row.version,
    steps,
    divergence,
    trace: virtual.trace,
    finalState: virtual.finalState(),
  };
}

// ---------------------------------------------------------------------------------------------------
// Secrets

const presentSecret = (s: typeof flowSecrets.$inferSelect) => ({ name: s.name, createdAt: isoAt(s.createdAt), updatedAt: isoAt(s.updatedAt) });

export const listSecrets = async (db: Db, storeId: string) =>
  (await db.select().from(flowSecrets).where(eq(flowSecrets.storeId, storeId)).orderBy(asc(flowSecrets.name)).all()).map(presentSecret);

/** Saves a secret sealed (AES-256-GCM, key beside the database, bound to store and name); answers without the value. */
export async function putSecret(services: Services, storeId: string, name: string, value: string, now: number) {
  const { db } = services;
  const sealed = sealSecrets(services, `${storeId}/${name}`, { value });
  const found = await db
    .select()
    .from(flowSecrets)
    .where(and(eq(flowSecrets.storeId, storeId), eq(flowSecrets.name, name)))
    .get();
  if (found)
    await db
      .update(flowSecrets)
      .set({ sealed, updatedAt: now })
      .where(and(eq(flowSecrets.storeId, storeId), eq(flowSecrets.name, name)))
      .run();
  else await db.insert(flowSecrets).values({ storeId, name, sealed, createdAt: now, updatedAt: now }).run();
  return { created: !found, secret: presentSecret({ storeId, name, sealed, createdAt: found?.createdAt ?? now, updatedAt: now }) };
}

const secretNames = async (db: Db, storeId: string) =>
  new Set((await db.select({ name: flowSecrets.name }).from(flowSecrets).where(eq(flowSecrets.storeId, storeId)).all()).map((s) => s.name));

export async function deleteSecret(db: Db, storeId: string, name: string) {
  const found = await db
    .select()
    .from(flowSecrets)
    .where(and(eq(flowSecrets.storeId, storeId), eq(flowSecrets.name, name)))
    .get();
  if (!found) throw fail(404, 'FLOW_SECRET_NOT_FOUND', { name });
  await db
    .delete(flowSecrets)
    .where(and(eq(flowSecrets.storeId, storeId), eq(flowSecrets.name, name)))
    .run();
  return { name, deleted: true };
}
