/**
 * Custom flows over HTTP: presets and node types, the check (each error kind), simulate on a virtual
 * clock, publish (and its refusals at dry run and approval), a product using the flow, replay with a
 * divergence, migration between versions, store events, secrets, and the agent lines.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, createAccessToken, login, startTestService, type Api, type TestService } from '../helpers/service.js';
import { connectSandbox, dataOf, fails, guestOrder, ok, subscribe } from '../helpers/flows.js';

let svc: TestService;
let api: Api;
test.before(async () => {
  svc = await startTestService({ unsafeWebhookHosts: ['127.0.0.1'] });
  api = svc.api;
  await connectSandbox(api);
});
test.after(async () => {
  await svc.close();
});

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value));
/** The error of a refused answer (checked to be `code`). */
function refusal(res: Parameters<typeof fails>[0], status: number, code: string) {
  fails(res, status, code);
  return res.body.error;
}
const codes = (findings: { code: string; path: string }[]) => findings.map((f) => [f.code, f.path]);

async function newFlow(body: Record<string, unknown>) {
  return ok(await api('POST', '/v1/commerce-flows', { body: { kind: 'SHIPPING', name: '테스트 흐름', ...body } }), 201);
}

test('presets: the four starting points each pass the check; node types list what the editor may place', async () => {
  const presets = ok(await api('GET', '/v1/flow-presets')).contents;
  assert.equal(
    presets.map((p: any) => p.key),
    ['made-to-order', 'digital-delivery', 'reservation', 'pickup'],
  );
  for (const p of presets) {
    const preset = ok(await api('GET', `/v1/flow-presets/${p.key}`));
    const flow = await newFlow({ name: p.name, kind: p.kind, presetKey: p.key });
    assert.equal(flow.draft, preset.definition);
    assert.equal([flow.publishedVersion, flow.isDefault], [null, false]);
    assert.equal(ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/draft/check`)).errors, [], p.key);
  }
  fails(await api('GET', '/v1/flow-presets/drop-ship'), 404, 'FLOW_PRESET_NOT_FOUND');
  fails(await api('POST', '/v1/commerce-flows', { body: { name: 'x', kind: 'MANUAL', presetKey: 'drop-ship' } }), 404, 'FLOW_PRESET_NOT_FOUND');
  const types = ok(await api('GET', '/v1/flow-node-types'));
  assert.ok(
    ['state', 'action', 'event.custom', 'event.app', 'timer.after', 'timer.at', 'condition', 'notify.webhook', 'notify.app'].every((t) =>
      types.contents.some((c: any) => c.type === t),
    ),
  );
  assert.ok(types.coreStatuses.includes('PURCHASE_DECIDED') && types.inputKinds.includes('datetime'));
});

const BROKEN = {
  progression: 'ITEM',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID' },
    MAKING: {
      label: '제작중',
      coreStatus: 'CONFIRMED',
      notify: [{ channel: 'sms' }, { channel: 'app.no-such-app.ping' }, { channel: 'webhook', params: { event: '"made" +' } }],
    },
    STUCK: { label: '멈춤', coreStatus: 'DISPATCHED' },
    ORPHAN: { label: '고아', coreStatus: 'DELIVERED', final: true },
  },
  transitions: [
    { from: 'PAID', to: 'MAKING', on: { action: 'START' } },
    { from: 'MAKING', to: 'STUCK', on: { action: 'GHOST' } },
    { from: 'MAKING', to: 'PAID', on: { action: 'START' } },
    { from: 'PAID', to: 'MAKING', on: { event: 'bogus' } },
    { from: 'PAID', to: 'MAKING', on: { event: 'app.no-such-app.DONE' } },
    { from: 'MAKING', to: 'STUCK', on: { timer: { after: 'P1D' } }, when: 'item.quantity >' },
    { from: 'STUCK', to: 'NOWHERE', on: { action: 'START' } },
  ],
  actions: {
    START: {
      label: '시작',
      actor: 'SELLER',
      scope: 'ITEM',
      inputs: [
        { key: 'color', kind: 'select', label: '색' },
        { key: 'more', kind: 'text', label: '더', when: { key: 'later', in: ['x'] } },
      ],
    },
  },
};

test('check: every error kind, with its path; blocking errors make publish, its dry run and an agent approval request 409 PUBLISH_BLOCKED', async () => {
  const flow = await newFlow({ definition: BROKEN });
  const check = ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/draft/check`));
  assert.equal(codes(check.errors), [
    ['UNKNOWN_ACTION', 'transitions[1].on.action'],
    ['CORE_STATUS_BACKWARDS', 'transitions[2]'],
    ['UNKNOWN_EVENT', 'transitions[3].on.event'],
    ['APP_NOT_INSTALLED', 'transitions[4].on.event'],
    ['EXPRESSION_INVALID', 'transitions[5].when'],
    ['UNKNOWN_STATE', 'transitions[6].to'],
    ['UNKNOWN_CHANNEL', 'states.MAKING.notify[0].channel'],
    ['APP_NOT_INSTALLED', 'states.MAKING.notify[1].channel'],
    ['EXPRESSION_INVALID', 'states.MAKING.notify[2].params.event'],
    ['UNREACHABLE_STATE', 'states.ORPHAN'],
    ['INPUT_INVALID', 'actions.START.inputs[0]'],
    ['INPUT_INVALID', 'actions.START.inputs[1]'],
  ]);
  // STUCK leaves only to a state that does not exist; a dead end needs no exit at all.
  const deadEnd = clone(BROKEN);
  deadEnd.transitions.pop();
  assert.ok(
    codes(ok(await api('POST', `/v1/commerce-flows/${(await newFlow({ definition: deadEnd })).flowId}/draft/check`)).errors).some(
      ([c, p]) => c === 'DEAD_END' && p === 'states.STUCK',
    ),
  );
  const noInitial = { ...clone(BROKEN), initial: 'START_HERE' };
  assert.equal(ok(await api('POST', `/v1/commerce-flows/${(await newFlow({ definition: noInitial })).flowId}/draft/check`)).errors[0], {
    code: 'INITIAL_MISSING',
    path: 'initial',
    message: '시작 상태 START_HERE이(가) states에 없습니다.',
  });

  const refused = refusal(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 409, 'PUBLISH_BLOCKED');
  assert.equal(refused.details.errors, check.errors);
  fails(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`, { headers: { 'x-svc-dry-run': '1' } }), 409, 'PUBLISH_BLOCKED');
  const agent = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['flow:rw'], agent: true }), storeId: svc.storeId });
  fails(await agent('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 409, 'PUBLISH_BLOCKED');
  assert.equal(
    ok(await api('GET', '/v1/approval-requests')).contents.filter((a: any) => a.target?.id === flow.flowId),
    [],
  );
  assert.is(ok(await api('GET', `/v1/commerce-flows/${flow.flowId}`)).publishedVersion, null);
});

test('simulate: the same engine on a virtual clock — actions, a refusal, a timer by advance, notifications and timers in the trace', async () => {
  const flow = await newFlow({ presetKey: 'made-to-order' });
  const sim = ok(
    await api('POST', `/v1/commerce-flows/${flow.flowId}/draft/simulate`, {
      body: {
        orderItem: { quantity: 3 },
        steps: [
          { action: 'START_MAKING' },
          { action: 'DISPATCH', input: { carrier: 'CJ', trackingNo: '1' } },
          { action: 'SEND_PROOF', input: {} },
          { action: 'SEND_PROOF', input: { proofUrl: 'https://proof.example/1' } },
          { advance: 'P2D' },
          { action: 'REQUEST_CHANGES', input: { what: 'OTHER', detail: '더 크게' } },
          { action: 'SEND_PROOF', input: { proofUrl: 'https://proof.example/2' } },
          { advance: 'P3DT1H' },
          { action: 'DISPATCH', input: { carrier: 'CJ', trackingNo: '1' } },
          { action: 'DELIVER' },
          { action: 'DECIDE_PURCHASE' },
        ],
      },
    }),
  );
  const t = sim.trace;
  assert.equal(
    t.map((e: any) => [e.from, e.to, e.refusal?.code ?? null]),
    [
      [null, 'PAID', null],
      ['PAID', 'MAKING', null],
      ['MAKING', 'MAKING', 'ACTION_NOT_AVAILABLE'],
      ['MAKING', 'MAKING', 'FLOW_ACTION_INPUT_INVALID'],
      ['MAKING', 'PROOF_SENT', null],
      ['PROOF_SENT', 'MAKING', null],
      ['MAKING', 'PROOF_SENT', null],
      ['PROOF_SENT', 'READY', null],
      ['READY', 'DISPATCHED', null],
      ['DISPATCHED', 'DELIVERED', null],
      ['DELIVERED', 'PURCHASE_DECIDED', null],
    ],
  );
  assert.equal(t[4].notifications, [{ channel: 'webhook', params: { event: 'proof-sent' } }]);
  assert.equal(
    t[4].timers.map((x: any) => [x.kind, x.to]),
    [['after', 'READY']],
  );
  // The proof sent again at +2 days waits its own 3 days: the timer fires at +5 days, by the trigger kind timer.
  assert.equal(t[7].trigger, { kind: 'timer', timer: 'after', transition: 4 });
  assert.is(Date.parse(t[7].at) - Date.parse(t[0].at), 5 * 86_400_000);
  assert.equal([sim.finalState.state, sim.finalState.coreStatus, sim.finalState.final, sim.truncated], ['PURCHASE_DECIDED', 'PURCHASE_DECIDED', true, false]);
  assert.equal(sim.finalState.inputs.SEND_PROOF, { proofUrl: 'https://proof.example/2' });
  fails(await api('POST', `/v1/commerce-flows/${flow.flowId}/draft/simulate`, { body: { steps: [{ advance: 'three days' }] } }), 400, 'VALIDATION_FAILED');
  // Simulation writes nothing: the flow is as it was.
  assert.equal(ok(await api('GET', `/v1/commerce-flows/${flow.flowId}`)).updatedAt, flow.updatedAt);
});

test('publish, use by a product, replay with a divergence, migrate to a new version, store events; default flows are locked', async () => {
  const flow = await newFlow({ presetKey: 'made-to-order', graph: { nodes: [{ id: 'PAID', x: 0, y: 0 }] } });
  const dry = ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`, { headers: { 'x-svc-dry-run': '1' } }));
  assert.equal([dry.dryRun, dry.preview.facts.check.errors, dry.preview.changes], [true, [], [{ field: 'publishedVersion', before: null, after: 1 }]]);
  const v1 = ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 201);
  assert.equal([v1.version, v1.graph, v1.runningItemCount], [1, { nodes: [{ id: 'PAID', x: 0, y: 0 }] }, 0]);
  const published = ok(await api('GET', `/v1/commerce-flows/${flow.flowId}`));
  assert.equal([published.publishedVersion, published.draft], [1, null]);
  fails(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 409, 'PUBLISH_BLOCKED');

  const { item, order } = await guestOrder(svc, api, { flowId: flow.flowId });
  assert.equal(ok(await api('GET', `/v1/products/${item.productId}/flow`)), { flowId: flow.flowId, version: 1, source: 'PRODUCT' });
  const id = item.orderItemId;
  assert.equal(item.flow, { flowId: flow.flowId, version: 1, state: 'PAID', coreStatus: 'PAID' });
  ok(await api('POST', `/v1/order-items/${id}/actions/START_MAKING`, { body: {} }));
  fails(await api('POST', `/v1/order-items/${id}/events/custom.proof-approved`, { body: {} }), 409, 'FLOW_EVENT_NOT_ACCEPTED');

  // v2: MAKING is now CRAFTING, START_MAKING is BEGIN, and a store event approves the proof.
  const v2def = clone(v1.definition);
  v2def.states.CRAFTING = v2def.states.MAKING;
  delete v2def.states.MAKING;
  for (const tr of v2def.transitions) for (const end of ['from', 'to']) if (tr[end] === 'MAKING') tr[end] = 'CRAFTING';
  v2def.actions.BEGIN = v2def.actions.START_MAKING;
  delete v2def.actions.START_MAKING;
  v2def.transitions[0].on = { action: 'BEGIN' };
  v2def.transitions.push({ from: 'CRAFTING', to: 'READY', on: { event: 'custom.proof-approved' } });
  ok(await api('PUT', `/v1/commerce-flows/${flow.flowId}/draft`, { body: { definition: v2def } }));

  const replay = ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/draft/replay`, { body: { orderItemId: id } }));
  assert.equal(
    replay.steps.map((s: any) => [s.trigger.kind, s.recorded.to, s.draft.to, s.same]),
    [
      ['start', 'PAID', 'PAID', true],
      ['action', 'MAKING', 'PAID', false],
    ],
  );
  assert.equal(
    [replay.divergence.trigger, replay.divergence.draft.refusal],
    [
      { kind: 'action', key: 'START_MAKING' },
      { code: 'ACTION_NOT_AVAILABLE', reason: 'UNKNOWN_ACTION' },
    ],
  );
  assert.is(replay.recordedVersion, 1);
  // Under its own definition the history replays without a difference.
  const sameFlow = await newFlow({ definition: v1.definition });
  fails(await api('POST', `/v1/commerce-flows/${sameFlow.flowId}/draft/replay`, { body: { orderItemId: id } }), 400, 'VALIDATION_FAILED');

  const v2 = ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 201);
  assert.is(v2.version, 2);
  const unmapped = refusal(await api('POST', `/v1/commerce-flows/${flow.flowId}/versions/2/migrate`, { body: { fromVersion: 1 } }), 400, 'VALIDATION_FAILED');
  assert.equal(
    unmapped.fieldErrors.map((f: any) => [f.field, f.code]),
    [['stateMap.MAKING', 'STATE_UNMAPPED']],
  );
  fails(await api('POST', `/v1/commerce-flows/${flow.flowId}/versions/9/migrate`, { body: { fromVersion: 1 } }), 404, 'FLOW_VERSION_NOT_FOUND');
  const hooks = await subscribe(api);
  const moved = ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/versions/2/migrate`, { body: { fromVersion: 1, stateMap: { MAKING: 'CRAFTING' } } }));
  assert.equal(moved, { flowId: flow.flowId, fromVersion: 1, toVersion: 2, movedItemCount: 1 });
  // The state key changed, so systems tracking flow states hear of it; no ORDER.* status event (no step was taken).
  const [migrated] = await hooks.forOrder(order.orderId, 1);
  const data = dataOf(migrated, 'ORDER.FLOW_STATE_CHANGED', migrated.sequence);
  assert.equal(
    { ...data, changedAt: typeof data.changedAt },
    {
      orderId: order.orderId,
      orderItemIds: [id],
      flowId: flow.flowId,
      flowVersion: 2,
      from: 'MAKING',
      to: 'CRAFTING',
      label: v2def.states.CRAFTING.label,
      coreStatus: 'CONFIRMED',
      changedAt: 'string',
    },
  );
  await hooks.receiver.close();
  const after = ok(await api('GET', `/v1/order-items/${id}/flow`));
  assert.equal([after.version, after.state, after.coreStatus], [2, 'CRAFTING', 'CONFIRMED']);
  const runs = ok(await api('GET', `/v1/order-items/${id}/flow/runs`)).contents;
  assert.equal(runs.at(-1).trigger, { kind: 'migration', fromVersion: 1, toVersion: 2 });
  assert.equal(ok(await api('GET', `/v1/commerce-flows/${flow.flowId}/versions/1`)).runningItemCount, 0);

  const evented = ok(await api('POST', `/v1/order-items/${id}/events/custom.proof-approved`, { body: { input: { by: 'phone' } } }));
  assert.equal([evented.state, evented.actions.map((a: any) => a.key)], ['READY', ['DISPATCH']]);
  assert.equal(ok(await api('GET', `/v1/order-items/${id}/flow/runs`)).contents.at(-1).input, { by: 'phone' });
  fails(await api('POST', `/v1/order-items/${id}/events/custom.proof-approved`, { body: {} }), 409, 'FLOW_EVENT_NOT_ACCEPTED');
  fails(await api('POST', `/v1/order-items/${id}/events/approved`, { body: {} }), 400, 'VALIDATION_FAILED');

  // v3 moves the order as one group: no migration across progression units.
  ok(await api('PUT', `/v1/commerce-flows/${flow.flowId}/draft`, { body: { definition: { ...v2def, progression: 'ORDER' } } }));
  ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 201);
  const mismatch = refusal(
    await api('POST', `/v1/commerce-flows/${flow.flowId}/versions/3/migrate`, { body: { fromVersion: 2 } }),
    409,
    'FLOW_PROGRESSION_MISMATCH',
  );
  assert.equal(mismatch.details, { from: 'ITEM', to: 'ORDER' });

  const shipping = ok(await api('GET', '/v1/commerce-flows')).contents.find((f: any) => f.isDefault && f.kind === 'SHIPPING');
  fails(await api('PUT', `/v1/commerce-flows/${shipping.flowId}/draft`, { body: { definition: v2def } }), 409, 'FLOW_DEFAULT_LOCKED');
  fails(await api('POST', `/v1/commerce-flows/${shipping.flowId}/publish`), 409, 'FLOW_DEFAULT_LOCKED');
  fails(await api('POST', `/v1/commerce-flows/${shipping.flowId}/versions/1/migrate`, { body: { fromVersion: 1 } }), 409, 'FLOW_DEFAULT_LOCKED');
  // A default flow is checked and simulated on its published definition.
  assert.equal(ok(await api('POST', `/v1/commerce-flows/${shipping.flowId}/draft/check`)).errors, []);
  const lived = ok(
    await api('POST', `/v1/commerce-flows/${shipping.flowId}/draft/simulate`, {
      body: { steps: [{ action: 'CONFIRM' }, { action: 'DISPATCH', input: { carrier: 'CJ', trackingNo: '1' } }, { advance: 'P7D' }, { advance: 'P8D' }] },
    }),
  );
  assert.equal(
    lived.trace.map((e: any) => e.to),
    ['PAID', 'CONFIRMED', 'DISPATCHED', 'DELIVERED', 'PURCHASE_DECIDED'],
  );
});

test('secrets: saved sealed, listed by name, never answered; agents may not save or delete them', async () => {
  const saved = await api('PUT', '/v1/commerce-flows/secrets', { body: { name: 'SMS_API_KEY', value: 'sk-very-secret' } });
  assert.is(saved.status, 201);
  assert.equal(Object.keys(saved.data).sort(), ['createdAt', 'name', 'updatedAt']);
  assert.is(ok(await api('PUT', '/v1/commerce-flows/secrets', { body: { name: 'SMS_API_KEY', value: 'sk-rotated' } })).name, 'SMS_API_KEY');
  const listed = await api('GET', '/v1/commerce-flows/secrets');
  assert.equal(
    listed.data.contents.map((s: any) => s.name),
    ['SMS_API_KEY'],
  );
  assert.not.ok(JSON.stringify(listed.body).includes('sk-'));
  fails(await api('PUT', '/v1/commerce-flows/secrets', { body: { name: 'lower', value: 'x' } }), 400, 'VALIDATION_FAILED');

  const agent = apiClient(svc.url, { token: await createAccessToken(svc, await login(svc), { scopes: ['flow:rw'], agent: true }), storeId: svc.storeId });
  fails(await agent('PUT', '/v1/commerce-flows/secrets', { body: { name: 'OTHER', value: 'x' } }), 403, 'AGENT_OPERATION_DENIED');
  fails(await agent('DELETE', '/v1/commerce-flows/secrets', { query: { name: 'SMS_API_KEY' } }), 403, 'AGENT_OPERATION_DENIED');
  assert.equal(ok(await agent('GET', '/v1/commerce-flows/secrets')).contents.length, 1);

  assert.equal(ok(await api('DELETE', '/v1/commerce-flows/secrets', { query: { name: 'SMS_API_KEY' } })), { name: 'SMS_API_KEY', deleted: true });
  fails(await api('DELETE', '/v1/commerce-flows/secrets', { query: { name: 'SMS_API_KEY' } }), 404, 'FLOW_SECRET_NOT_FOUND');
});

test('agents: drafting, check and simulate run directly; publish, version moves and store events wait for approval', async () => {
  const owner = await login(svc);
  const agent = apiClient(svc.url, { token: await createAccessToken(svc, owner, { scopes: ['flow:rw', 'order:rw'], agent: true }), storeId: svc.storeId });
  const flow = ok(await agent('POST', '/v1/commerce-flows', { body: { name: '에이전트 흐름', kind: 'MANUAL', presetKey: 'digital-delivery' } }), 201);
  ok(await agent('PUT', `/v1/commerce-flows/${flow.flowId}/draft`, { body: { definition: flow.draft } }));
  assert.equal(ok(await agent('POST', `/v1/commerce-flows/${flow.flowId}/draft/check`)).errors, []);
  assert.is(
    ok(
      await agent('POST', `/v1/commerce-flows/${flow.flowId}/draft/simulate`, {
        body: { steps: [{ action: 'SEND_LINK', input: { downloadUrl: 'https://x.example' } }] },
      }),
    ).finalState.state,
    'SENT',
  );

  const pending = (res: any) => assert.equal([res.status, res.body.meta.code], [202, 'APPROVAL_REQUIRED']);
  const dry = ok(await agent('POST', `/v1/commerce-flows/${flow.flowId}/publish`, { headers: { 'x-svc-dry-run': '1' } }));
  assert.equal([dry.decision, dry.preview.facts.check.errors], ['APPROVAL_REQUIRED', []]);
  pending(await agent('POST', `/v1/commerce-flows/${flow.flowId}/publish`));
  assert.is(ok(await api('GET', `/v1/commerce-flows/${flow.flowId}`)).publishedVersion, null);
  ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 201);
  ok(await api('PUT', `/v1/commerce-flows/${flow.flowId}/draft`, { body: { definition: flow.draft } }));
  ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 201);
  pending(await agent('POST', `/v1/commerce-flows/${flow.flowId}/versions/2/migrate`, { body: { fromVersion: 1 } }));
  const { item } = await guestOrder(svc, api);
  pending(await agent('POST', `/v1/order-items/${item.orderItemId}/events/custom.anything`, { body: {} }));
});

test.run();
