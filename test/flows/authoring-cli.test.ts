/**
 * `svc flows` with the compiled CLI: create from a preset, check (exit 1 on blocking errors), graph as
 * Mermaid and dot, simulate, publish, list, get, replay and migrate — each with --json.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jsonOf, runCli } from '../helpers/cli.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { connectSandbox, guestOrder, ok } from '../helpers/flows.js';

let svc: TestService;
let configDir: string;
test.before(async () => {
  svc = await startTestService();
  await connectSandbox(svc.api);
  configDir = mkdtempSync(join(tmpdir(), 'svc-cli-flows-'));
});
test.after(async () => {
  await svc.close();
  rmSync(configDir, { recursive: true, force: true });
});

const env = () => ({ SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: svc.ownerToken, SVC_STORE_ID: svc.storeId });
const svcCli = (args: string[]) => runCli(args, env());

test('flows create, check, graph, simulate, publish, list, get, replay and migrate', async () => {
  const flow = jsonOf(await svcCli(['flows', 'create', '--name', '주문 제작', '--kind', 'SHIPPING', '--preset', 'made-to-order', '--json']));
  const id = flow.flowId as string;
  const checked = await svcCli(['flows', 'check', id]);
  assert.is(checked.exitCode, 0, checked.stderr);
  assert.match(checked.stdout, 'Errors: 0');

  const mermaid = await svcCli(['flows', 'graph', id]);
  assert.is(mermaid.exitCode, 0, mermaid.stderr);
  const lines = mermaid.stdout.trim().split('\n');
  assert.equal(lines.slice(0, 3), ['stateDiagram-v2', '  [*] --> PAID', '  PAID : 결제 완료 · PAID']);
  assert.ok(lines.includes('  PAID --> MAKING : START_MAKING (SELLER)'), mermaid.stdout);
  assert.ok(lines.includes('  PROOF_SENT --> READY : after P3D'), mermaid.stdout);
  assert.ok(lines.includes('  PURCHASE_DECIDED --> [*]'), mermaid.stdout);
  const dot = await svcCli(['flows', 'graph', id, '--format', 'dot']);
  assert.match(dot.stdout, /^digraph "주문 제작" \{/);
  assert.match(dot.stdout, '"PROOF_SENT" -> "READY" [label="after P3D", style=dashed];');

  const steps = join(configDir, 'steps.json');
  writeFileSync(
    steps,
    JSON.stringify({ steps: [{ action: 'START_MAKING' }, { action: 'SEND_PROOF', input: { proofUrl: 'https://p.example' } }, { advance: 'P3D' }] }),
  );
  const sim = jsonOf(await svcCli(['flows', 'simulate', id, '--data', `@${steps}`, '--json']));
  assert.is(sim.finalState.state, 'READY');
  const simTable = await svcCli(['flows', 'simulate', id, '--data', `@${steps}`]);
  assert.match(simTable.stdout, 'Final: READY (CONFIRMED)');

  const version = jsonOf(await svcCli(['flows', 'publish', id, '--json']));
  assert.is(version.version, 1);
  assert.ok(jsonOf(await svcCli(['flows', 'list', '--json'])).some((f: any) => f.flowId === id && f.publishedVersion === 1));
  assert.match((await svcCli(['flows', 'get', id])).stdout, 'published v1');
  assert.match((await svcCli(['flows', 'graph', id, '--version', '1'])).stdout, 'stateDiagram-v2');

  const { item } = await guestOrder(svc, svc.api, { flowId: id });
  ok(await svc.api('POST', `/v1/order-items/${item.orderItemId}/actions/START_MAKING`, { body: {} }));
  const broken = { ...version.definition, initial: 'NOPE' };
  ok(await svc.api('PUT', `/v1/commerce-flows/${id}/draft`, { body: { definition: broken } }));
  const blocked = await svcCli(['flows', 'check', id]);
  assert.is(blocked.exitCode, 1);
  assert.match(blocked.stdout, 'INITIAL_MISSING  initial');
  const refused = await svcCli(['flows', 'publish', id, '--json']);
  assert.equal([refused.exitCode, jsonOf(refused).code], [1, 'PUBLISH_BLOCKED']);

  ok(await svc.api('PUT', `/v1/commerce-flows/${id}/draft`, { body: { definition: version.definition } }));
  const replay = await svcCli(['flows', 'replay', id, item.orderItemId]);
  assert.match(replay.stdout, 'No divergence');
  jsonOf(await svcCli(['flows', 'publish', id, '--json']));
  const moved = jsonOf(await svcCli(['flows', 'migrate', id, '--from', '1', '--to', '2', '--map', 'MAKING=MAKING', '--json']));
  assert.equal(moved.movedItemCount, 1);
  const usage = await svcCli(['flows', 'migrate', id, '--from', '1', '--to', '2', '--map', 'MAKING']);
  assert.is(usage.exitCode, 2);
});

test.run();
