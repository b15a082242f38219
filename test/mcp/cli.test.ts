import { makeStoreWentPublic } from '../helpers/storefront.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonOf, packageRoot, runCli } from '../helpers/cli.js';
import { apiClient, createAccessToken, login, startTestService, type TestService } from '../helpers/service.js';

let svc: TestService;
let owner: string;
const configDir = mkdtempSync(join(tmpdir(), 'svc-mcp-cli-'));
const svcCli = (args: string[], token = owner) =>
  runCli(args, { SVC_CONFIG_DIR: configDir, SVC_API_URL: svc.url, SVC_TOKEN: token, SVC_STORE_ID: 'dev-store' });

test.before(async () => {
  svc = await startTestService();
  owner = await login(svc);
});
test.after(async () => {
  await svc.close();
});

test("svc mcp config prints each client's snippet, local (svc mcp over stdio) or remote (/mcp)", async () => {
  const claude = jsonOf(await svcCli(['mcp', 'config', '--client', 'claude', '--json']));
  assert.equal(claude.config.mcpServers.svc.args, [join(packageRoot, 'bin', 'run.js'), 'mcp', '--profile', 'default', '--store', 'dev-store']);
  assert.is(claude.config.mcpServers.svc.command, process.execPath);
  // A token from the environment is never written into the snippet.
  assert.not.ok(JSON.stringify(claude).includes(owner));
  assert.is(claude.config.mcpServers.svc.env.SVC_API_URL, svc.url);
  const vscode = jsonOf(await svcCli(['mcp', 'config', '--client', 'vscode', '--remote', '--json']));
  assert.equal(vscode.config, { servers: { svc: { type: 'http', url: `${svc.url}/mcp?store=dev-store` } } });
  const cursor = jsonOf(await svcCli(['mcp', 'config', '--client', 'cursor', '--remote', '--json']));
  assert.equal(cursor.config, { mcpServers: { svc: { url: `${svc.url}/mcp?store=dev-store` } } });
  const human = await svcCli(['mcp', 'config', '--client', 'cursor']);
  assert.is(human.exitCode, 0);
  assert.match(human.stdout, '"mcpServers"');
  assert.is((await svcCli(['mcp', 'config', '--client', 'emacs'])).exitCode, 2);
});

test('svc approvals list, get, approve and reject', async () => {
  await makeStoreWentPublic(svc, { token: await login(svc), storeId: svc.storeId });
  const agentToken = await createAccessToken(svc, owner, { scopes: ['store:rw'], agent: true });
  const agent = apiClient(svc.url, { token: agentToken, storeId: svc.storeId });
  const first = (await agent('PATCH', '/v1/store', { body: { name: 'Approved By CLI' } })).data.approvalId;
  const second = (await agent('PATCH', '/v1/store', { body: { name: 'Rejected By CLI' } })).data.approvalId;

  const list = jsonOf(await svcCli(['approvals', 'list', '--json']));
  assert.equal(
    list.contents.map((a: any) => a.approvalId),
    [second, first],
  );
  const table = await svcCli(['approvals', 'list']);
  assert.match(table.stdout, 'APPROVAL ID');
  assert.match(table.stdout, 'PATCH /v1/store');
  assert.is(jsonOf(await svcCli(['approvals', 'get', first, '--json'])).status, 'PENDING');

  const approved = jsonOf(await svcCli(['approvals', 'approve', first, '--json']));
  assert.equal([approved.status, approved.result.statusCode], ['SUCCEEDED', 200]);
  const rejected = await svcCli(['approvals', 'reject', second]);
  assert.is(rejected.exitCode, 0);
  assert.match(rejected.stdout, 'REJECTED');
  assert.is((await svc.api('GET', '/v1/store', { token: owner })).data.name, 'Approved By CLI');

  const again = await svcCli(['approvals', 'approve', first, '--json']);
  assert.equal([again.exitCode, jsonOf(again).code], [1, 'APPROVAL_NOT_PENDING']);
  // An agent's token cannot decide, from the CLI either.
  const byAgent = await svcCli(['approvals', 'reject', first, '--json'], agentToken);
  assert.equal([byAgent.exitCode, jsonOf(byAgent).code], [1, 'AGENT_OPERATION_DENIED']);
});

test('svc mcp without a credential says how to get one on stderr and exits 1, instead of serving 401s', async () => {
  // A fresh machine: no saved login, no SVC_TOKEN, the default profile (the local service's address).
  const r = await runCli(['mcp'], { SVC_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'svc-mcp-nocred-')) }, 10_000);
  assert.is(r.exitCode, 1, `exit ${r.exitCode}: ${r.stderr}`);
  assert.is(r.stdout, '', 'stdout belongs to the protocol');
  const lines = r.stderr.trim().split('\n');
  assert.is(lines.length, 1, r.stderr);
  for (const hint of ['SVC_TOKEN', 'svc tokens create', 'svc login']) assert.match(lines[0], hint);
});

test.run();
