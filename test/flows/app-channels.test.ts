/**
 * Flows and apps over HTTP: an app notification channel delivered to a real sandboxed app function (the
 * payload of spec 02 §2.4, a stable invocation id), the app answering with its own flow event, the event
 * refused to anyone but that app and for undeclared names, and not-sent records once the app is gone.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issueInstallationToken } from '../../src/modules/apps/installation-tokens.js';
import { apiClient, startTestService, type Api, type TestService } from '../helpers/service.js';
import { bundleFor, deploy, installApp, uniqueHandle } from '../helpers/apps.js';
import { connectSandbox, fails, guestOrder, ok } from '../helpers/flows.js';

let svc: TestService;
let api: Api;
test.before(async () => {
  svc = await startTestService();
  api = svc.api;
  await connectSandbox(api);
});
test.after(async () => {
  await svc.close();
});

/** The notification function keeps every call it gets, then approves the proof with the app's own event. */
const CODE = `var __app = { notifications: { 'send-proof': async (n, ctx) => {
  const calls = (await storage.get('calls')) ?? [];
  calls.push({ payload: n, invocationId: ctx.invocationId });
  await storage.set('calls', calls);
  const res = await api('POST', '/v1/order-items/' + n.orderItemIds[0] + '/events/app.' + ctx.app.handle + '.PROOF_APPROVED', { input: { approvedBy: 'app' } });
  if (!res.ok) throw new Error('event refused: ' + JSON.stringify(res.error));
  return true;
} } };`;

const manifest = (handle: string) => ({
  handle,
  name: 'Proof sender',
  scopes: ['order:rw'],
  flow: {
    notifications: {
      'send-proof': {
        label: '시안 보내기',
        params: {
          message: { type: 'string', label: '문구', required: true },
          urgent: { type: 'boolean', label: '급함' },
          note: { type: 'string', label: '메모' },
          apiKey: { type: 'string', label: 'API 키' },
        },
      },
    },
    events: { PROOF_APPROVED: { label: '시안 승인' } },
  },
});

const definition = (handle: string, channel = `app.${handle}.send-proof`) => ({
  progression: 'ITEM',
  initial: 'PAID',
  states: {
    PAID: { label: '결제 완료', coreStatus: 'PAID' },
    PROOF: {
      label: '시안 확인',
      coreStatus: 'CONFIRMED',
      // `note` evaluates to the empty string and `urgent` reads a missing input: both reach the app as null.
      // `apiKey` names a flow secret: opened only for the call, so runs hold its name alone.
      notify: [{ channel, params: { message: '"시안: " + item.productName', urgent: 'input.rush', note: '""', apiKey: 'secrets.PROOF_KEY' } }],
    },
    APPROVED: { label: '승인됨', coreStatus: 'DELIVERED', final: true },
  },
  transitions: [
    { from: 'PAID', to: 'PROOF', on: { action: 'SEND' } },
    { from: 'PROOF', to: 'APPROVED', on: { event: `app.${handle}.PROOF_APPROVED` } },
  ],
  actions: { SEND: { label: '시안 보내기', actor: 'SELLER', scope: 'ITEM' } },
});

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('an app notification reaches the sandboxed function with the spec payload and a stable invocation id; the app event moves the item', async () => {
  const handle = uniqueHandle('proof');
  const m = manifest(handle);
  await deploy(api, m, bundleFor(m, CODE));
  const installation = await installApp(api, handle);
  const asApp = apiClient(svc.url, { token: (await issueInstallationToken(svc.services, installation.installationId)).token, storeId: svc.storeId });

  // The check knows the app's notifications and events.
  const wrong = ok(
    await api('POST', '/v1/commerce-flows', { body: { name: '틀린 앱 알림', kind: 'SHIPPING', definition: definition(handle, `app.${handle}.send-invoice`) } }),
    201,
  );
  const wrongCheck = ok(await api('POST', `/v1/commerce-flows/${wrong.flowId}/draft/check`));
  assert.equal(
    wrongCheck.errors.map((e: any) => [e.code, e.path]),
    [['APP_NOTIFICATION_UNKNOWN', 'states.PROOF.notify[0].channel']],
  );
  const types = ok(await api('GET', '/v1/flow-node-types'));
  assert.equal(
    types.apps.find((a: any) => a.handle === handle),
    {
      handle,
      notifications: [{ channel: `app.${handle}.send-proof`, name: 'send-proof', params: ['message', 'urgent', 'note', 'apiKey'] }],
      events: [{ event: `app.${handle}.PROOF_APPROVED`, name: 'PROOF_APPROVED' }],
    },
  );

  // Secrets go whole to app functions only: a missing one is a warning, one in a webhook or inside an expression an error.
  const secretless = ok(await api('POST', '/v1/commerce-flows', { body: { name: '비밀 없음', kind: 'SHIPPING', definition: definition(handle) } }), 201);
  assert.equal(
    ok(await api('POST', `/v1/commerce-flows/${secretless.flowId}/draft/check`)).warnings.map((w: any) => [w.code, w.path]),
    [['SECRET_MISSING', 'states.PROOF.notify[0].params.apiKey']],
  );
  const leaky = definition(handle);
  leaky.states.PROOF.notify.push({ channel: 'webhook', params: { key: 'secrets.PROOF_KEY' } } as any);
  leaky.states.PROOF.notify[0].params.message = '"키: " + secrets.PROOF_KEY';
  const leakyFlow = ok(await api('POST', '/v1/commerce-flows', { body: { name: '새는 비밀', kind: 'SHIPPING', definition: leaky } }), 201);
  assert.equal(
    ok(await api('POST', `/v1/commerce-flows/${leakyFlow.flowId}/draft/check`)).errors.map((e: any) => [e.code, e.path]),
    [
      ['SECRET_NOT_ALLOWED', 'states.PROOF.notify[0].params.message'],
      ['SECRET_NOT_ALLOWED', 'states.PROOF.notify[1].params.key'],
    ],
  );
  ok(await api('PUT', '/v1/commerce-flows/secrets', { body: { name: 'PROOF_KEY', value: 'sk_proof_123' } }), 201);

  const flow = ok(await api('POST', '/v1/commerce-flows', { body: { name: '앱 시안 흐름', kind: 'SHIPPING', definition: definition(handle) } }), 201);
  assert.equal(ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/draft/check`)), { errors: [], warnings: [] });
  ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 201);
  const { item, order } = await guestOrder(svc, api, { flowId: flow.flowId, name: '머그컵' });
  const id = item.orderItemId;

  // Only the app itself may send its event, and only while the state takes it.
  fails(await asApp('POST', `/v1/order-items/${id}/events/app.${handle}.PROOF_APPROVED`, { body: {} }), 409, 'FLOW_EVENT_NOT_ACCEPTED');
  fails(await api('POST', `/v1/order-items/${id}/events/app.${handle}.PROOF_APPROVED`, { body: {} }), 403, 'FLOW_EVENT_APP_FORBIDDEN');
  fails(await asApp('POST', `/v1/order-items/${id}/events/app.${handle}.PROOF_REJECTED`, { body: {} }), 403, 'FLOW_EVENT_APP_FORBIDDEN');
  const other = uniqueHandle('other');
  await deploy(api, manifest(other), bundleFor(manifest(other), CODE));
  const otherInstallation = await installApp(api, other);
  const asOther = apiClient(svc.url, { token: (await issueInstallationToken(svc.services, otherInstallation.installationId)).token, storeId: svc.storeId });
  fails(await asOther('POST', `/v1/order-items/${id}/events/app.${handle}.PROOF_APPROVED`, { body: {} }), 403, 'FLOW_EVENT_APP_FORBIDDEN');

  const sent = ok(await api('POST', `/v1/order-items/${id}/actions/SEND`, { body: {} }));
  assert.is(sent.state, 'PROOF');
  const runs = ok(await api('GET', `/v1/order-items/${id}/flow/runs`)).contents;
  const [notification] = runs.at(-1).notifications;
  assert.equal(
    [notification.channel, notification.sent, notification.params],
    [`app.${handle}.send-proof`, true, { message: '시안: 머그컵', urgent: null, note: null, apiKey: { secret: 'PROOF_KEY' } }],
  );
  assert.match(notification.invocationId, /^fan_/);

  const approved = await until(
    () => api('GET', `/v1/order-items/${id}/flow`).then((r) => r.data),
    (f) => f.state === 'APPROVED',
    'the app event',
  );
  assert.equal([approved.coreStatus, approved.version], ['DELIVERED', 1]);
  const last = ok(await api('GET', `/v1/order-items/${id}/flow/runs`)).contents.at(-1);
  assert.equal(
    [last.trigger, last.actor, last.input],
    [{ kind: 'event', name: `app.${handle}.PROOF_APPROVED` }, { type: 'APP', id: installation.installationId }, { approvedBy: 'app' }],
  );

  const calls = ok(await asApp('GET', '/v1/app/storage/calls')).value;
  assert.equal(calls, [
    {
      payload: {
        name: 'send-proof',
        orderId: order.orderId,
        orderItemIds: [id],
        flowId: flow.flowId,
        flowVersion: 1,
        state: 'PROOF',
        params: { message: '시안: 머그컵', urgent: null, note: null, apiKey: 'sk_proof_123' },
      },
      invocationId: notification.invocationId,
    },
  ]);
  const executions = ok(await api('GET', `/v1/apps/installations/${installation.installationId}/activity`));
  assert.ok(JSON.stringify(executions).includes('send-proof'));
});

test('a failing notification is retried with the same invocation id; an uninstalled app is recorded as not sent and the flow proceeds', async () => {
  const handle = uniqueHandle('flaky');
  const m = manifest(handle);
  // Fails on the first call, succeeds on the second; both calls are kept.
  const flaky = `var __app = { notifications: { 'send-proof': async (n, ctx) => {
    const seen = (await storage.get('seen')) ?? [];
    seen.push(ctx.invocationId);
    await storage.set('seen', seen);
    if (seen.length === 1) throw new Error('partner down');
    return true;
  } } };`;
  await deploy(api, m, bundleFor(m, flaky));
  const installation = await installApp(api, handle);
  const asApp = apiClient(svc.url, { token: (await issueInstallationToken(svc.services, installation.installationId)).token, storeId: svc.storeId });
  const flow = ok(await api('POST', '/v1/commerce-flows', { body: { name: '재시도 흐름', kind: 'SHIPPING', definition: definition(handle) } }), 201);
  ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/publish`), 201);

  const first = await guestOrder(svc, api, { flowId: flow.flowId });
  ok(await api('POST', `/v1/order-items/${first.item.orderItemId}/actions/SEND`, { body: {} }));
  const seenOnce = await until(
    () => asApp('GET', '/v1/app/storage/seen').then((r) => r.data?.value ?? []),
    (s: string[]) => s.length === 1,
    'the first attempt',
  );
  // The function stored its call before it threw; the retry is scheduled once the job records the failure.
  const attempts = () => svc.services.db.$client.prepare<[string], number>('SELECT attempts FROM flow_app_notifications WHERE id = ?').pluck().get(seenOnce[0]);
  await until(attempts, (n) => n === 1, 'the first attempt recorded');
  await svc.advance(61);
  const seen = await until(
    () => asApp('GET', '/v1/app/storage/seen').then((r) => r.data?.value ?? []),
    (s: string[]) => s.length === 2,
    'the retry',
  );
  assert.equal(seen, [seenOnce[0], seenOnce[0]]);
  const runs = ok(await api('GET', `/v1/order-items/${first.item.orderItemId}/flow/runs`)).contents;
  assert.is(runs.at(-1).notifications[0].invocationId, seenOnce[0]);

  ok(await api('DELETE', `/v1/apps/installations/${installation.installationId}`));
  const second = await guestOrder(svc, api, { flowId: flow.flowId });
  const moved = ok(await api('POST', `/v1/order-items/${second.item.orderItemId}/actions/SEND`, { body: {} }));
  assert.is(moved.state, 'PROOF');
  const last = ok(await api('GET', `/v1/order-items/${second.item.orderItemId}/flow/runs`)).contents.at(-1);
  assert.equal(
    last.notifications.map((n: any) => [n.sent, n.reason, n.invocationId]),
    [[false, 'APP_NOT_INSTALLED', undefined]],
  );
  // The check now refuses the flow's app channel and event.
  ok(await api('PUT', `/v1/commerce-flows/${flow.flowId}/draft`, { body: { definition: definition(handle) } }));
  const check = ok(await api('POST', `/v1/commerce-flows/${flow.flowId}/draft/check`));
  assert.equal(
    check.errors.map((e: any) => e.code),
    ['APP_NOT_INSTALLED', 'APP_NOT_INSTALLED'],
  );
});

test.run();
