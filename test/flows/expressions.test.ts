/**
 * Flow expressions never hold the service: `matches` is RE2 (the catastrophic pattern of the outside
 * security run answers at once and right, through simulate (actions and a timer) and a real order's buyer
 * action, while another store is answered), patterns RE2 cannot run are check errors, each evaluation and
 * each trigger has a work budget (over it the expression is null and simulate names it), and a whole
 * simulation has one (422).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { newSellerWithStore, startTestService, type Api, type TestService } from '../helpers/service.js';
import { buyerApi, connectSandbox, fails, GUEST, guestOrder, ok } from '../helpers/flows.js';

let svc: TestService;
let api: Api;
let other: Api;
test.before(async () => {
  svc = await startTestService();
  api = svc.api;
  await connectSandbox(api);
  other = (await newSellerWithStore(svc, 'other')).api;
});
test.after(async () => {
  await svc.close();
});

/** The finding's text: 37 characters that took a backtracking RegExp 13.5 s against `^(a+)+$`. */
const EVIL = `${'a'.repeat(36)}!`;
const CATASTROPHIC = '"^(a+)+$"';
const digits = '[0,1,2,3,4,5,6,7,8,9]';
/** 10^5 sums in nested comprehensions: over one evaluation's budget. */
const HUGE_LIST = `${digits}.map(a, ${digits}.map(b, ${digits}.map(c, ${digits}.map(d, ${digits}.map(e, a + b + c + d + e))))).size() > 0`;
/** 10^4 steps of nested quantifiers: within one evaluation's budget, but not ten times over. */
const ALMOST = `${digits}.all(a, ${digits}.all(b, ${digits}.all(c, ${digits}.all(d, true))))`;
/** A string doubled 20 times: over the budget long before it is megabytes. */
const HUGE_STRING = `cel.bind(s, "ab", ${Array.from({ length: 20 }, (_, i) => `cel.bind(s${i}, ${i ? `s${i - 1}` : 's'} + ${i ? `s${i - 1}` : 's'}, `).join('')}s19.size()${')'.repeat(20)} > 0 ? "2030-01-01T00:00:00Z" : "2031-01-01T00:00:00Z")`;

/**
 * The buyer's note decides whether the request is taken (and, a day later, whether the timer closes the
 * item); a seller's HEAVY action has a condition over the budget, and a timer at an instant over it.
 */
const FLOW = {
  progression: 'ITEM',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID' },
    REQUESTED: { label: '요청 접수', coreStatus: 'CONFIRMED' },
    DONE: { label: '완료', coreStatus: 'DELIVERED', final: true },
  },
  transitions: [
    { from: 'PAID', to: 'REQUESTED', on: { action: 'REQUEST' }, when: `input.note.matches(${CATASTROPHIC})` },
    { from: 'PAID', to: 'REQUESTED', on: { action: 'HEAVY' }, when: HUGE_LIST },
    { from: 'REQUESTED', to: 'DONE', on: { timer: { after: 'P1D' } }, when: `flow.inputs.REQUEST.note.matches(${CATASTROPHIC})` },
    { from: 'REQUESTED', to: 'DONE', on: { timer: { at: HUGE_STRING } } },
    { from: 'REQUESTED', to: 'DONE', on: { action: 'FINISH' } },
  ],
  actions: {
    REQUEST: { label: '요청', actor: 'BUYER', scope: 'ITEM', inputs: [{ key: 'note', kind: 'text', label: '메모', required: true }] },
    HEAVY: { label: '무거운 작업', actor: 'SELLER', scope: 'ITEM' },
    FINISH: { label: '완료 처리', actor: 'SELLER', scope: 'ITEM' },
  },
};

async function newFlow(definition: unknown) {
  return ok(await api('POST', '/v1/commerce-flows', { body: { kind: 'SHIPPING', name: '식 예산 흐름', definition } }), 201);
}
const simulate = (flowId: string, steps: unknown[]) => api('POST', `/v1/commerce-flows/${flowId}/draft/simulate`, { body: { steps } });
const condition = { code: 'FLOW_MOVE_NOT_ALLOWED', reason: 'CONDITION' };

test('simulate: the catastrophic pattern answers with RE2 semantics while another store is answered', async () => {
  const flow = await newFlow(FLOW);
  assert.equal(ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/draft/check`)).errors, []);
  const [sim, store] = await Promise.all([
    simulate(flow.flowId, [{ action: 'REQUEST', input: { note: EVIL } }, { action: 'REQUEST', input: { note: 'aaaaaaaa' } }, { advance: 'P1D' }]),
    other('GET', '/v1/store'),
  ]);
  assert.ok(ok(store).storeId !== svc.storeId);
  const trace = ok(sim).trace;
  assert.equal(
    trace.map((e: any) => [e.from, e.to, e.refusal]),
    [
      [null, 'PAID', null],
      ['PAID', 'PAID', condition],
      ['PAID', 'REQUESTED', null],
      ['REQUESTED', 'DONE', null],
    ],
  );
  assert.equal(trace[3].trigger, { kind: 'timer', timer: 'after', transition: 2 });

  // The finding's own condition, on literals only.
  const literal = structuredClone(FLOW);
  literal.transitions[0].when = `"${EVIL}".matches(${CATASTROPHIC}) || "${EVIL}".matches("^a+!$")`;
  const lit = await newFlow(literal);
  const [answer, again] = await Promise.all([simulate(lit.flowId, [{ action: 'REQUEST', input: { note: 'x' } }]), other('GET', '/v1/store')]);
  ok(again);
  assert.is(ok(answer).finalState.state, 'REQUESTED');
});

test("a real order: the buyer's catastrophic note is refused at once, a matching one moves the item; over-budget expressions count as null", async () => {
  const flow = await newFlow(FLOW);
  ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 201);
  const { order, item } = await guestOrder(svc, api, { flowId: flow.flowId });
  const id = item.orderItemId;
  const buyer = buyerApi(svc, svc.storeId);
  const request = (note: string) =>
    buyer('POST', `/storefront/v1/guest/orders/${order.orderId}/items/${id}/actions/REQUEST`, {
      body: { orderPassword: GUEST.orderPassword, input: { note } },
    });

  const [refused, store] = await Promise.all([request(EVIL), other('GET', '/v1/store')]);
  ok(store);
  fails(refused, 409, 'FLOW_MOVE_NOT_ALLOWED');
  assert.is(refused.body.error.details.reason, 'CONDITION');

  // Over one evaluation's budget: the condition is false, the refusal an ordinary one, nothing changed.
  const heavy = await api('POST', `/v1/order-items/${id}/actions/HEAVY`, { body: {} });
  fails(heavy, 409, 'FLOW_MOVE_NOT_ALLOWED');
  assert.is(heavy.body.error.details.reason, 'CONDITION');
  assert.is(ok(await api('GET', `/v1/order-items/${id}/flow`)).state, 'PAID');

  ok(await request('aaaa'));
  const moved = ok(await api('GET', `/v1/order-items/${id}/flow`));
  assert.is(moved.state, 'REQUESTED');
  // The `after` timer is set; the `at` one, whose instant went over the budget, is no timer.
  assert.equal(
    moved.timers.map((t: any) => [t.kind, t.to, t.status]),
    [['after', 'DONE', 'PENDING']],
  );
  ok(await api('POST', `/v1/order-items/${id}/actions/FINISH`, { body: {} }));
  assert.is(ok(await api('GET', `/v1/orders/${order.orderId}`)).items[0].flow.state, 'DONE');
});

test('check: a pattern RE2 cannot run (backreference, lookahead) is EXPRESSION_INVALID at its path and blocks publishing', async () => {
  const definition = structuredClone(FLOW);
  definition.transitions[0].when = 'input.note.matches("(a)\\\\1")';
  definition.transitions[2].when = 'flow.inputs.REQUEST.note.matches("a(?=b)")';
  const flow = await newFlow(definition);
  const check = ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/draft/check`));
  assert.equal(
    check.errors.map((f: any) => [f.code, f.path]),
    [
      ['EXPRESSION_INVALID', 'transitions[0].when'],
      ['EXPRESSION_INVALID', 'transitions[2].when'],
    ],
  );
  assert.match(check.errors[0].message, /RE2/);
  const blocked = await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`);
  fails(blocked, 409, 'PUBLISH_BLOCKED');
  assert.equal(blocked.body.error.details.errors, check.errors);
  // A pattern that only arrives at run time and is no RE2 makes its expression null, nothing worse.
  const dynamic = structuredClone(FLOW);
  dynamic.transitions[0].when = 'input.note.matches(input.note)';
  const sim = ok(
    await simulate((await newFlow(dynamic)).flowId, [
      { action: 'REQUEST', input: { note: '(a)\\1' } },
      { action: 'REQUEST', input: { note: 'a+' } },
    ]),
  );
  assert.equal(
    sim.trace.map((e: any) => [e.to, e.refusal]),
    [
      ['PAID', null],
      ['PAID', condition],
      ['REQUESTED', null],
    ],
  );
});

test('budgets: one evaluation over its budget is null and named EXPRESSION_BUDGET_EXCEEDED; a simulation over its whole budget is 422', async () => {
  const flow = await newFlow(FLOW);
  const sim = ok(await simulate(flow.flowId, [{ action: 'HEAVY' }, { action: 'REQUEST', input: { note: 'a' } }, { advance: 'PT1H' }]));
  assert.equal(sim.trace[1].refusal, condition);
  assert.equal(sim.trace[1].expressionErrors, [{ code: 'EXPRESSION_BUDGET_EXCEEDED', expression: HUGE_LIST }]);
  // Entering REQUESTED sets the `after` timer only: the `at` instant doubled the buyer's note past the budget.
  assert.equal(sim.trace[2].to, 'REQUESTED');
  assert.equal(
    sim.trace[2].timers.map((t: any) => t.kind),
    ['after'],
  );
  assert.equal(sim.trace[2].expressionErrors, [{ code: 'EXPRESSION_BUDGET_EXCEEDED', expression: HUGE_STRING }]);

  // A thousand steps each at the edge of their own budget: the run as a whole is refused, and says where.
  const [whole, store] = await Promise.all([
    simulate(
      flow.flowId,
      Array.from({ length: 1000 }, () => ({ action: 'HEAVY' })),
    ),
    other('GET', '/v1/store'),
  ]);
  ok(store);
  fails(whole, 422, 'FLOW_SIMULATION_BUDGET_EXCEEDED');
  assert.ok(whole.body.error.details.step > 0 && whole.body.error.details.step < 1000);
  assert.is(whole.body.error.details.budget, 5_000_000);
});

test('budgets: the expressions of one trigger share a budget; each alone would fit', async () => {
  const definition = structuredClone(FLOW);
  definition.transitions = [
    ...Array.from({ length: 11 }, () => ({ from: 'PAID', to: 'REQUESTED', on: { action: 'HEAVY' }, when: `${ALMOST} == false` })),
    { from: 'PAID', to: 'REQUESTED', on: { action: 'HEAVY' }, when: ALMOST },
    { from: 'PAID', to: 'REQUESTED', on: { action: 'FINISH' }, when: ALMOST },
    { from: 'REQUESTED', to: 'DONE', on: { action: 'FINISH' } },
  ];
  const flow = await newFlow(definition);
  const sim = ok(await simulate(flow.flowId, [{ action: 'HEAVY' }, { action: 'FINISH' }]));
  const [, heavy, finish] = sim.trace;
  assert.equal(heavy.refusal, condition);
  assert.ok(heavy.expressionErrors.length > 0 && heavy.expressionErrors.length < 12, JSON.stringify(heavy.expressionErrors.length));
  assert.is(heavy.expressionErrors.at(-1).expression, ALMOST);
  assert.equal([finish.to, finish.refusal, finish.expressionErrors], ['REQUESTED', null, []]);
});

test.run();
