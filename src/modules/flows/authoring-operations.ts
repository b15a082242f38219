import { z } from 'zod';
import { fail } from '../../server/errors.js';
import { stated } from '../../server/formats.js';
import { defineOperation, reply } from '../../server/registry.js';
import { instant } from '../../server/responses.js';
import { appMaySend, flowAppsOf } from './app-channels.js';
import {
  assertPublishable,
  checkFlow,
  createFlow,
  deleteSecret,
  listSecrets,
  migrate,
  planMigration,
  publish,
  putSecret,
  replayItem,
  saveDraft,
  simulateFlow,
} from './authoring.js';
import { APP_EVENT, CUSTOM_EVENT, definitionSchema, isoDuration } from './definition.js';
import { EDITOR_VOCABULARY, findPreset, NODE_TYPES, PRESETS } from './presets.js';
import { FLOW_WRITE, flowRecord, graphSchema, itemFlow, presentVersion, tag, versionRecord } from './flow-shapes.js';
import { itemView } from './item-actions.js';
import { loadFlow, presentFlow, runningItemCount } from './flow-catalogue.js';
import { loadItemFlow } from './item-flows.js';
import { moveItem } from './item-moves.js';

/** Flow authoring (drafts, check, simulate, replay, publish, migrate, secrets, presets, node types) and flow events. */

const flowIdParams = z.object({ flowId: z.string() }).strict();
const FLOW_ERRORS = { 403: ['TENANT_MISMATCH'], 404: ['FLOW_NOT_FOUND'] } as const;
const finding = z.object({ code: z.string(), path: z.string(), message: z.string() });
const checkResult = z.object({ errors: z.array(finding), warnings: z.array(finding) });
const input = z.record(z.string(), z.json());

const traceEntry = z.object({
  at: instant,
  trigger: z.union([
    z.object({ kind: z.literal('start') }),
    z.object({ kind: z.literal('action'), key: z.string(), actor: z.enum(['SELLER', 'BUYER']) }),
    z.object({ kind: z.literal('event'), name: z.string() }),
    z.object({ kind: z.literal('timer'), timer: z.enum(['after', 'at']), transition: z.number().int() }),
  ]),
  from: z.string().nullable(),
  to: z.string(),
  coreStatus: z.string(),
  notifications: z.array(z.object({ channel: z.string(), params: z.record(z.string(), z.unknown()) })),
  timers: z.array(z.object({ transition: z.number().int(), kind: z.enum(['after', 'at']), to: z.string(), dueAt: instant })),
  refusal: z.looseObject({ code: z.string() }).nullable(),
  expressionErrors: z.array(z.object({ code: z.literal('EXPRESSION_BUDGET_EXCEEDED'), expression: z.string() })),
});
const finalState = z.object({
  state: z.string(),
  label: z.string(),
  coreStatus: z.string(),
  final: z.boolean(),
  timers: z.array(z.object({ transition: z.number().int(), kind: z.enum(['after', 'at']), to: z.string(), dueAt: instant })),
  inputs: z.record(z.string(), z.record(z.string(), z.unknown())),
  at: instant,
});

const simulationStep = z.union([
  z.object({ action: z.string().min(1).max(40), input: input.optional(), actor: z.enum(['SELLER', 'BUYER']).optional() }).strict(),
  z.object({ event: z.string().min(1).max(100), input: input.optional() }).strict(),
  z.object({ advance: isoDuration }).strict(),
]);

const secretName = z.string().regex(/^[A-Z][A-Z0-9_]{0,39}$/, { message: '대문자로 시작하는 대문자, 숫자, 밑줄 40자 이하의 이름이어야 합니다.' });
const secretRecord = z.object({ name: z.string(), createdAt: instant, updatedAt: instant });

const eventName = z
  .string()
  .refine((n) => CUSTOM_EVENT.test(n) || APP_EVENT.test(n), { message: 'custom.<이름> 또는 app.<handle>.<EVENT>여야 합니다.' })
  .meta({ pattern: `${CUSTOM_EVENT.source}|${APP_EVENT.source}` });

export const authoringOperations = [
  defineOperation({
    operationId: 'createCommerceFlow',
    method: 'POST',
    path: '/v1/commerce-flows',
    summary: 'Create a custom flow from a preset, a definition, or (neither) the default flow of its kind; it starts as an unpublished draft',
    tag,
    auth: 'store',
    scope: 'flow:rw',
    status: 201,
    body: z
      .object({
        name: z.string().trim().min(1).max(60),
        kind: z.enum(['SHIPPING', 'MANUAL']),
        presetKey: z.string().min(1).max(40).optional(),
        definition: definitionSchema.optional(),
        graph: graphSchema.optional(),
      })
      .strict()
      .refine((b) => !(b.presetKey && b.definition), { message: 'presetKey와 definition 중 하나만 주세요.', path: ['definition'] })
      .meta(stated.notBoth('presetKey', 'definition')),
    response: flowRecord,
    errors: { 404: ['FLOW_PRESET_NOT_FOUND'] },
    target: () => ({ type: 'FLOW', id: null }),
    handler: async (ctx) => presentFlow(await createFlow(ctx.db, ctx.store.id, ctx.now, ctx.body)),
  }),
  defineOperation({
    operationId: 'saveCommerceFlowDraft',
    method: 'PUT',
    path: '/v1/commerce-flows/{flowId}/draft',
    summary: "Save a flow's draft definition (and the editor's graph); running items are not affected until a publish",
    tag,
    auth: 'store',
    scope: 'flow:rw',
    params: flowIdParams,
    body: z.object({ definition: definitionSchema, graph: graphSchema.optional() }).strict(),
    response: flowRecord,
    errors: { ...FLOW_ERRORS, 409: ['FLOW_DEFAULT_LOCKED'] },
    target: (ctx) => ({ type: 'FLOW', id: ctx.params.flowId }),
    handler: async (ctx) => presentFlow(await saveDraft(ctx.db, ctx.store.id, ctx.params.flowId, ctx.now, ctx.body)),
  }),
  defineOperation({
    operationId: 'checkCommerceFlowDraft',
    method: 'POST',
    path: '/v1/commerce-flows/{flowId}/draft/check',
    summary: 'Check the draft (or, without one, the published definition): errors block publishing, warnings do not',
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: flowIdParams,
    response: checkResult,
    errors: FLOW_ERRORS,
    target: (ctx) => ({ type: 'FLOW', id: ctx.params.flowId }),
    handler: async (ctx) => checkFlow(ctx.db, await loadFlow(ctx.db, ctx.store.id, ctx.params.flowId)),
  }),
  defineOperation({
    operationId: 'simulateCommerceFlowDraft',
    method: 'POST',
    path: '/v1/commerce-flows/{flowId}/draft/simulate',
    summary: 'Run a made-up paid item through the draft on a virtual clock: actions, events and `advance` (ISO 8601 duration) steps',
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: flowIdParams,
    body: z.object({ orderItem: input.optional(), steps: z.array(simulationStep).max(1000) }).strict(),
    response: z.object({ trace: z.array(traceEntry), finalState, truncated: z.boolean() }),
    errors: { ...FLOW_ERRORS, 422: ['FLOW_SIMULATION_BUDGET_EXCEEDED'] },
    target: (ctx) => ({ type: 'FLOW', id: ctx.params.flowId }),
    // Writes nothing: outside a transaction it can let other requests run between its steps.
    async: true,
    handler: async (ctx) => simulateFlow(ctx.db, await loadFlow(ctx.db, ctx.store.id, ctx.params.flowId), ctx.now, ctx.body),
  }),
  defineOperation({
    operationId: 'replayCommerceFlowDraft',
    method: 'POST',
    path: '/v1/commerce-flows/{flowId}/draft/replay',
    summary: "Re-run an item's recorded history under the draft and show where it first differs",
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: flowIdParams,
    body: z.object({ orderItemId: z.string().min(1) }).strict(),
    response: z.object({
      orderItemId: z.string(),
      flowId: z.string(),
      recordedVersion: z.number().int(),
      steps: z.array(
        z.object({
          runId: z.string().nullable(),
          at: instant,
          trigger: z.record(z.string(), z.unknown()),
          recorded: z.object({ to: z.string(), coreStatus: z.string() }),
          draft: z.object({ to: z.string(), coreStatus: z.string(), refusal: traceEntry.shape.refusal }),
          same: z.boolean(),
        }),
      ),
      divergence: z.unknown(),
      trace: z.array(traceEntry),
      finalState,
    }),
    errors: { 403: ['TENANT_MISMATCH'], 404: ['FLOW_NOT_FOUND', 'ORDER_ITEM_NOT_FOUND'], 422: ['FLOW_SIMULATION_BUDGET_EXCEEDED'] },
    target: (ctx) => ({ type: 'FLOW', id: ctx.params.flowId }),
    handler: async (ctx) => replayItem(ctx.db, await loadFlow(ctx.db, ctx.store.id, ctx.params.flowId), ctx.body.orderItemId, ctx.now),
  }),
  defineOperation({
    operationId: 'publishCommerceFlow',
    title: '주문 흐름 게시',
    method: 'POST',
    path: '/v1/commerce-flows/{flowId}/publish',
    summary: "Publish the draft as the flow's next version (refused while the check finds errors); new payments follow it",
    tag,
    auth: 'store',
    scope: 'flow:rw',
    agent: 'approval',
    status: 201,
    params: flowIdParams,
    response: versionRecord,
    errors: { ...FLOW_ERRORS, 409: ['FLOW_DEFAULT_LOCKED', 'PUBLISH_BLOCKED'] },
    target: (ctx) => ({ type: 'FLOW', id: ctx.params.flowId }),
    // Blocking errors refuse alike at dry run and approval request (spec 01 §5.6).
    precheck: async (ctx) => {
      await assertPublishable(ctx.db, ctx.store.id, ctx.params.flowId);
    },
    preview: async (ctx) => {
      const { flow, check } = await assertPublishable(ctx.db, ctx.store.id, ctx.params.flowId);
      const next = (flow.publishedVersion ?? 0) + 1;
      return {
        changes: [{ field: 'publishedVersion', before: flow.publishedVersion, after: next }],
        facts: { check, runningItemsOnCurrentVersion: flow.publishedVersion ? await runningItemCount(ctx.db, flow.id, flow.publishedVersion) : 0 },
        targetName: flow.name,
      };
    },
    handler: async (ctx) => presentVersion(ctx.db, await publish(ctx.db, ctx.store.id, ctx.params.flowId, ctx.now)),
  }),
  defineOperation({
    operationId: 'migrateCommerceFlowVersion',
    title: '주문 흐름 버전 이전',
    method: 'POST',
    path: '/v1/commerce-flows/{flowId}/versions/{version}/migrate',
    summary: 'Move the running items of `fromVersion` onto this version, mapping old states to new ones',
    tag,
    auth: 'store',
    scope: 'flow:rw',
    agent: 'approval',
    params: z.object({ flowId: z.string(), version: z.coerce.number().int().min(1) }).strict(),
    body: z.object({ fromVersion: z.number().int().min(1), stateMap: z.record(z.string(), z.string()).default({}) }).strict(),
    response: z.object({ flowId: z.string(), fromVersion: z.number().int(), toVersion: z.number().int(), movedItemCount: z.number().int() }),
    errors: { 403: ['TENANT_MISMATCH'], 404: ['FLOW_NOT_FOUND', 'FLOW_VERSION_NOT_FOUND'], 409: ['FLOW_DEFAULT_LOCKED', 'FLOW_PROGRESSION_MISMATCH'] },
    target: (ctx) => ({ type: 'FLOW', id: ctx.params.flowId }),
    precheck: async (ctx) => {
      await planMigration(ctx.db, ctx.store.id, ctx.params.flowId, { ...ctx.body, version: ctx.params.version });
    },
    preview: async (ctx) => ({
      changes: [],
      facts: { runningItemCount: await runningItemCount(ctx.db, ctx.params.flowId, ctx.body.fromVersion), toVersion: ctx.params.version },
    }),
    handler: (ctx) => migrate(ctx.db, ctx.store.id, ctx.params.flowId, ctx.now, { ...ctx.body, version: ctx.params.version }),
  }),
  defineOperation({
    operationId: 'listCommerceFlowSecrets',
    method: 'GET',
    path: '/v1/commerce-flows/secrets',
    summary: "The store's flow secrets by name (values are never answered)",
    tag,
    auth: 'store',
    scope: 'flow:r',
    response: z.object({ contents: z.array(secretRecord) }),
    handler: async (ctx) => ({ contents: await listSecrets(ctx.db, ctx.store.id) }),
  }),
  defineOperation({
    operationId: 'putCommerceFlowSecret',
    method: 'PUT',
    path: '/v1/commerce-flows/secrets',
    summary: 'Save a flow secret by name (stored encrypted; the answer never holds the value)',
    tag,
    auth: 'store',
    scope: 'flow:rw',
    agent: 'denied',
    body: z.object({ name: secretName, value: z.string().min(1).max(4096) }).strict(),
    response: secretRecord,
    alternateStatuses: [201],
    target: (ctx) => ({ type: 'FLOW_SECRET', id: ctx.body.name }),
    handler: async (ctx) => {
      const { created, secret } = await putSecret(ctx.services, ctx.store.id, ctx.body.name, ctx.body.value, ctx.now);
      return created ? reply(201, secret) : secret;
    },
  }),
  defineOperation({
    operationId: 'deleteCommerceFlowSecret',
    method: 'DELETE',
    path: '/v1/commerce-flows/secrets',
    summary: 'Delete a flow secret by name (`?name=`)',
    tag,
    auth: 'store',
    scope: 'flow:rw',
    agent: 'denied',
    query: z.object({ name: secretName }).strict(),
    response: z.object({ name: z.string(), deleted: z.literal(true) }),
    errors: { 404: ['FLOW_SECRET_NOT_FOUND'] },
    target: (ctx) => ({ type: 'FLOW_SECRET', id: ctx.query.name }),
    handler: (ctx) => deleteSecret(ctx.db, ctx.store.id, ctx.query.name),
  }),
  defineOperation({
    operationId: 'listFlowPresets',
    method: 'GET',
    path: '/v1/flow-presets',
    summary: 'Flow presets to start a custom flow from (made-to-order, digital delivery, reservation/stay, pickup)',
    tag,
    auth: 'store',
    scope: 'flow:r',
    response: z.object({ contents: z.array(z.object({ key: z.string(), name: z.string(), kind: z.enum(['SHIPPING', 'MANUAL']), description: z.string() })) }),
    handler: () => ({ contents: PRESETS.map(({ key, name, kind, description }) => ({ key, name, kind, description })) }),
  }),
  defineOperation({
    operationId: 'getFlowPreset',
    method: 'GET',
    path: '/v1/flow-presets/{key}',
    summary: 'A flow preset with its definition',
    tag,
    auth: 'store',
    scope: 'flow:r',
    params: z.object({ key: z.string() }).strict(),
    response: z.object({ key: z.string(), name: z.string(), kind: z.enum(['SHIPPING', 'MANUAL']), description: z.string(), definition: definitionSchema }),
    errors: { 404: ['FLOW_PRESET_NOT_FOUND'] },
    handler: (ctx) => {
      const preset = findPreset(ctx.params.key);
      if (!preset) throw fail(404, 'FLOW_PRESET_NOT_FOUND', { presetKey: ctx.params.key });
      return preset;
    },
  }),
  defineOperation({
    operationId: 'listFlowNodeTypes',
    method: 'GET',
    path: '/v1/flow-node-types',
    summary: "What the flow editor may place: node types, core statuses, input kinds, and the installed apps' notifications and events",
    tag,
    auth: 'store',
    scope: 'flow:r',
    response: z.object({
      contents: z.array(
        z.object({ type: z.string(), category: z.enum(['STATE', 'TRIGGER', 'CONDITION', 'NOTIFY']), label: z.string(), description: z.string() }),
      ),
      coreStatuses: z.array(z.string()),
      inputKinds: z.array(z.string()),
      apps: z.array(
        z.object({
          handle: z.string(),
          notifications: z.array(z.object({ channel: z.string(), name: z.string(), params: z.array(z.string()) })),
          events: z.array(z.object({ event: z.string(), name: z.string() })),
        }),
      ),
    }),
    handler: async (ctx) => ({ contents: NODE_TYPES, ...EDITOR_VOCABULARY, apps: await flowAppsOf(ctx.db, ctx.store.id) }),
  }),
  defineOperation({
    operationId: 'sendOrderItemEvent',
    title: '주문 상품에 흐름 이벤트 보내기',
    method: 'POST',
    path: '/v1/order-items/{orderItemId}/events/{name}',
    summary: "Send a flow event to an item: a store event `custom.<name>`, or an app event `app.<handle>.<EVENT>` (that app's installation token only)",
    tag,
    auth: 'store',
    ...FLOW_WRITE,
    agent: 'approval',
    params: z.object({ orderItemId: z.string(), name: eventName }).strict(),
    body: z.object({ input: input.optional() }).strict(),
    response: itemFlow,
    errors: { 403: ['TENANT_MISMATCH', 'FLOW_EVENT_APP_FORBIDDEN'], 404: ['ORDER_ITEM_NOT_FOUND'], 409: ['FLOW_EVENT_NOT_ACCEPTED'] },
    target: (ctx) => ({ type: 'ORDER_ITEM', id: ctx.params.orderItemId }),
    handler: async (ctx) => {
      const { name } = ctx.params;
      const app = APP_EVENT.exec(name);
      if (app && !(await appMaySend(ctx.db, ctx.principal, app[1], app[2]))) throw fail(403, 'FLOW_EVENT_APP_FORBIDDEN', { event: name });
      const { row } = await loadItemFlow(ctx.db, ctx.store.id, ctx.params.orderItemId, ctx.now);
      const actor =
        ctx.principal.kind === 'installation' ? { type: 'APP' as const, id: ctx.principal.tokenId } : { type: 'SELLER' as const, id: ctx.principal.userId };
      await moveItem(ctx.services, ctx.now, row, { trigger: { kind: 'event', name, input: ctx.body.input ?? {} }, actor });
      return itemView(ctx.db, (await loadItemFlow(ctx.db, ctx.store.id, row.orderItemId, ctx.now)).row, ctx.now);
    },
  }),
];
